// The cheapest upstream there is: node:http answering every POST with a fixed JSON-RPC result
// (only the request's id is copied in), so that the proxy's own cost per request shows instead
// of hiding behind an MCP server's (the SDK upstream serves about a tenth as many requests). It
// refuses requests without the expected token, as the SDK upstream does (a DPoP-bound connector's
// with the DPoP scheme and a proof, which it does not verify: that cost is the server's, not the proxy's). It answers the
// handshake too (`initialize`, its notification, and `server/discover` as a 2025 server does:
// method not found), so that the embedded stack can connect a connector to it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const AUTHORIZATION = `Bearer ${process.env.BENCH_TOKEN ?? 'bench-token'}`;
const DPOP_AUTHORIZATION = `DPoP ${process.env.BENCH_TOKEN ?? 'bench-token'}`;
const ID = /"id":(\d+|"[^"]*")/;

function answerOf(body: string): string | null {
  const id = ID.exec(body)?.[1] ?? 'null';
  if (body.includes('"method":"tools/call"')) return `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"hello"}]}}`;
  if (body.includes('"method":"notifications/')) return null;
  if (body.includes('"method":"initialize"')) {
    const version = /"protocolVersion":"([^"]+)"/.exec(body)?.[1] ?? '2025-06-18';
    return `{"jsonrpc":"2.0","id":${id},"result":{"protocolVersion":"${version}","capabilities":{"tools":{}},"serverInfo":{"name":"cheap","version":"1.0.0"}}}`;
  }
  if (body.includes('"method":"tools/list"')) return `{"jsonrpc":"2.0","id":${id},"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}`;
  return `{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"Method not found"}}`;
}

const server = http.createServer((req, res) => {
  const { authorization } = req.headers;
  if (authorization !== AUTHORIZATION && !(authorization === DPOP_AUTHORIZATION && req.headers.dpop)) return void res.writeHead(401).end();
  if (req.method === 'DELETE') return void res.writeHead(200).end();
  if (req.method !== 'POST') return void res.writeHead(405).end();
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => (body += chunk));
  req.on('end', () => {
    const answer = answerOf(body);
    if (answer === null) return void res.writeHead(202).end();
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer), 'mcp-session-id': 'cheap' });
    res.end(answer);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`READY ${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => process.exit(0));
