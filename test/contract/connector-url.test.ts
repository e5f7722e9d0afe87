import test from 'ava';
import { matchKey, normaliseUrl } from '../../contract/connector-url';

test('normalisation lower-cases scheme and host and drops the default port', (t) => {
  t.is(normaliseUrl('HTTPS://MCP.Example.COM:443/Path'), 'https://mcp.example.com/Path');
  t.is(normaliseUrl('http://127.0.0.1:80/mcp'), 'http://127.0.0.1/mcp');
  t.is(normaliseUrl('http://127.0.0.1:8080/mcp'), 'http://127.0.0.1:8080/mcp');
  t.is(normaliseUrl('mcp+stdio://Everything'), 'mcp+stdio://everything');
});

test('unsupported schemes and malformed URLs are refused', (t) => {
  for (const bad of ['ftp://x.y', 'javascript:alert(1)', 'data:text/plain,x', 'not a url', '/relative', 'http://', 'https://u:p@host/x', 'https://h/#frag']) {
    t.throws(() => normaliseUrl(bad), undefined, bad);
  }
});

test('matching ignores case, default port and a trailing slash', (t) => {
  t.is(matchKey('https://MCP.stripe.com:443/'), matchKey('https://mcp.stripe.com'));
  t.is(matchKey('https://api.githubcopilot.com/mcp/'), matchKey('https://api.githubcopilot.com/mcp'));
  t.not(matchKey('https://api.githubcopilot.com/mcp'), matchKey('https://api.githubcopilot.com/other'));
  t.not(matchKey('http://mcp.stripe.com'), matchKey('https://mcp.stripe.com'));
});
