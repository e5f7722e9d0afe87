// The cheapest upstream there is: node:http answering every POST with a fixed JSON-RPC result
// (only the request's id is copied in), so that the proxy's own cost per request shows instead
// of hiding behind an MCP server's (the SDK upstream serves about a tenth as many requests). It
// refuses requests without the expected bearer token, as the SDK upstream does.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const AUTHORIZATION = `Bearer ${process.env.BENCH_TOKEN ?? 'bench-token'}`;
const ID = /"id":(\d+)/;

const server = http.createServer((req, res) => {
  if (req.headers.authorization !== AUTHORIZATION) return void res.writeHead(401).end();
  if (req.method !== 'POST') return void res.writeHead(405).end();
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => (body += chunk));
  req.on('end', () => {
    const answer = `{"jsonrpc":"2.0","id":${ID.exec(body)?.[1] ?? 'null'},"result":{"content":[{"type":"text","text":"hello"}]}}`;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
    res.end(answer);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`READY ${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => process.exit(0));
