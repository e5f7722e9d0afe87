// The consent page as the user reads it: whose connector, said plainly, and the MCP server's
// address without anything a credential could hide in.
import test from 'ava';
import { renderConsentPage } from '../../api/consent-page';

const page = (serverUrl: string, ownerName: string | null) =>
  renderConsentPage({ serverUrl, ownerName, connectorName: 'Docs', authorizationUrl: 'https://as.example/authorize?state=s' });

test('names the owner by its readable name and says the user\'s account will serve that owner', (t) => {
  const html = page('https://mcp.example/mcp', 'ann@example.com');
  t.regex(html, /belongs to <strong>ann@example\.com<\/strong>/);
  t.regex(html, /your account at this MCP server will serve <strong>ann@example\.com<\/strong>/);
});

test('the server is shown as origin and path only: no userinfo, query or fragment', (t) => {
  const html = page('https://user:p4ss@mcp.example:8443/v1/mcp?api_key=s3cret&x=1#frag', 'ann');
  t.true(html.includes('<code>https://mcp.example:8443/v1/mcp</code>'));
  for (const hidden of ['p4ss', 'user:', 's3cret', 'api_key', 'frag']) t.false(html.includes(hidden), hidden);
});

test('a name with markup is escaped; no owner reads as the service', (t) => {
  t.true(page('https://mcp.example/mcp', '<img src=x onerror=alert(1)>').includes('&lt;img src=x onerror=alert(1)&gt;'));
  t.regex(page('https://mcp.example/mcp', null), /no owner recorded/);
});

test("names the authorization server's origin, where the user is about to sign in, apart from the MCP server", (t) => {
  const html = renderConsentPage({
    serverUrl: 'https://mcp.example/mcp', ownerName: 'ann', connectorName: null,
    authorizationUrl: 'https://login.other-idp.example:8443/oauth2/authorize?client_id=c&state=s&redirect_uri=x',
  });
  t.true(html.includes('<code id="authorization-server">https://login.other-idp.example:8443</code>'));
  t.regex(html, /sign in at this authorization server, which the MCP server named/);
  t.false(/<code[^>]*>[^<]*client_id/.test(html), 'the origin only, not the request');
});
