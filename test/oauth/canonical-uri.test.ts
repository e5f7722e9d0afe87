// Canonical MCP server URIs (the RFC 8707 resource) and which declared resources cover a server.
import test from 'ava';
import { canonicalServerUri, resourceCovers } from '../../activities/oauth/canonical-uri';
import { InvalidServerUrlError } from '../../activities/oauth/errors';

test('canonical server URIs: lower-case scheme and host, no default port, fragment or trailing slash', (t) => {
  t.is(canonicalServerUri('HTTPS://MCP.Example.COM:443/Mcp/'), 'https://mcp.example.com/Mcp');
  t.is(canonicalServerUri('https://mcp.example.com/'), 'https://mcp.example.com');
  t.is(canonicalServerUri('http://127.0.0.1:8080/mcp#frag'), 'http://127.0.0.1:8080/mcp');
  t.is(canonicalServerUri('https://mcp.example.com/mcp?tenant=a'), 'https://mcp.example.com/mcp?tenant=a');
  t.throws(() => canonicalServerUri('mcp.example.com'), { instanceOf: InvalidServerUrlError });
  t.throws(() => canonicalServerUri('ftp://mcp.example.com'), { instanceOf: InvalidServerUrlError });
  t.throws(() => canonicalServerUri('https://user:pw@mcp.example.com'), { instanceOf: InvalidServerUrlError });
});

test('a resource covers the server when equal or a whole-segment path prefix on the same origin', (t) => {
  t.true(resourceCovers('https://mcp.example.com/mcp/', 'https://mcp.example.com/mcp'));
  t.true(resourceCovers('https://MCP.example.com', 'https://mcp.example.com/mcp'));
  t.true(resourceCovers('https://mcp.example.com/tenant', 'https://mcp.example.com/tenant/mcp'));
  t.false(resourceCovers('https://mcp.example.com/ten', 'https://mcp.example.com/tenant/mcp'));
  t.false(resourceCovers('https://other.example.com', 'https://mcp.example.com/mcp'));
  t.false(resourceCovers('http://mcp.example.com', 'https://mcp.example.com/mcp'));
  t.false(resourceCovers('https://mcp.example.com/mcp/deeper', 'https://mcp.example.com/mcp'));
  t.false(resourceCovers('not a url', 'https://mcp.example.com/mcp'));
});
