// What the caller's URL may and may not decide about the upstream request.
import test from 'ava';
import { connectorIdFromPath, queryOf } from '../../proxy/mcp-path';
import { upstreamTarget } from '../../proxy/upstream-target';

test('the MCP path yields the connector id, anything else yields null', (t) => {
  const id = '6f1c2a8e-2b0d-4c55-9a53-0d6c1a2b3c4d';
  t.is(connectorIdFromPath(`/api/v1/connectors/${id}/mcp`), id);
  t.is(connectorIdFromPath(`/api/v1/connectors/${id}/mcp/`), id);
  t.is(connectorIdFromPath(`/api/v1/connectors/${id}/mcp?x=1`), id);
  for (const path of [
    `/api/v1/connectors/${id}`,
    `/api/v1/connectors/${id}/mcp/extra`,
    `/api/v1/connectors/${id}/mcp/../../admin`,
    '/api/v1/connectors//mcp',
    '/api/v1/connectors/%2e%2e/mcp',
    '/api/v1/connectors/a%2Fb/mcp',
    '/api/v1/connectors/%E0%A4%A/mcp',
  ]) {
    t.is(connectorIdFromPath(path), null, path);
  }
});

test('the upstream path is the target path; the caller adds only query parameters the target lacks', (t) => {
  const plain = upstreamTarget('http://127.0.0.1:8080/v1/mcp', queryOf('/api/v1/connectors/x/mcp?a=1&b=2'));
  t.is(plain.path, '/v1/mcp?a=1&b=2');
  const fixed = upstreamTarget('http://127.0.0.1:8080/mcp?tenant=acme', '?tenant=evil&x=y');
  t.is(fixed.path, '/mcp?tenant=acme&x=y');
  t.is(upstreamTarget('http://127.0.0.1:8080/mcp', '').path, '/mcp');
});

test('host, port and origin come from the target', (t) => {
  const v6 = upstreamTarget('http://[::1]:9000/mcp', '');
  t.like(v6, { hostname: '::1', host: '[::1]:9000', port: 9000, origin: 'http://[::1]:9000' });
  const tls = upstreamTarget('https://127.0.0.1/mcp?key=secret', '');
  t.like(tls, { protocol: 'https:', port: 443, host: '127.0.0.1', origin: 'https://127.0.0.1' });
});

test('slashes in a query survive http-proxy path joining', (t) => {
  t.is(upstreamTarget('http://127.0.0.1/mcp?next=https://a//b', '').path, '/mcp?next=https:%2F%2Fa%2F%2Fb');
});
