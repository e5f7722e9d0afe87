// The Go baseline of bench/proxy.ts: a relay of the kind the fastest Go MCP gateways are (an
// mcp-go streamable HTTP server in front of an mcp-go streamable HTTP client), passing the
// upstream's tools through. Callers must bring one bearer key, the upstream gets another.
// Prints "READY <port>" once it listens on 127.0.0.1, as the bench's other servers do.
package main

import (
	"context"
	"crypto/subtle"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	upstream, err := connect(context.Background(), os.Getenv("RELAY_UPSTREAM_URL"), os.Getenv("RELAY_UPSTREAM_TOKEN"))
	if err != nil {
		log.Fatalf("upstream: %v", err)
	}
	tools, err := upstream.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		log.Fatalf("tools/list: %v", err)
	}
	relay := server.NewMCPServer("bench-go-relay", "1.0.0", server.WithToolCapabilities(false))
	for _, tool := range tools.Tools {
		relay.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return upstream.CallTool(ctx, req)
		})
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("READY %d\n", listener.Addr().(*net.TCPAddr).Port)
	mux := http.NewServeMux()
	mux.Handle("/mcp", requireKey(os.Getenv("RELAY_CALLER_KEY"), server.NewStreamableHTTPServer(relay)))
	log.Fatal(http.Serve(listener, mux))
}

// One session to the upstream, shared by every call. Go's default transport keeps 2 idle
// connections per host, which at 32 callers means opening new ones all the time: the pool is
// raised so that the baseline is the best this kind of relay does, not its default.
func connect(ctx context.Context, url, token string) (*client.Client, error) {
	pool := &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256}}
	c, err := client.NewStreamableHttpClient(url,
		transport.WithHTTPBasicClient(pool),
		transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	init := mcp.InitializeRequest{}
	init.Params.ClientInfo = mcp.Implementation{Name: "bench-go-relay", Version: "1.0.0"}
	_, err = c.Initialize(ctx, init)
	return c, err
}

// The caller's credential, compared in constant time: a gateway's least authentication.
func requireKey(key string, next http.Handler) http.Handler {
	want := []byte("Bearer " + key)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if key == "" || subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
