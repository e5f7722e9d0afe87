// The two ways a URL that may carry credentials is shown: displayUrl (origin and path, for text
// people and logs read) and maskedUrl (the whole URL with its secrets masked, for API answers).
import test from 'ava';
import { displayUrl, isSecretName, MASK, maskedUrl } from '../../contract/display-url';

const withSecrets = 'https://user:pass-1@mcp.example.com:8443/mcp/v1?api_key=key-2&region=eu&Access_Token=tok-3#sig=frag-4';

test('displayUrl keeps scheme, host, port and path, and drops user info, query and fragment', (t) => {
  t.is(displayUrl(withSecrets), 'https://mcp.example.com:8443/mcp/v1');
  t.is(displayUrl(new URL(withSecrets)), 'https://mcp.example.com:8443/mcp/v1');
  t.is(displayUrl('https://mcp.example.com'), 'https://mcp.example.com');
  t.is(displayUrl('mongodb://admin:pw@h1:27017,h2:27017/registry?authSource=admin'), 'mongodb://h1:27017,h2:27017/registry', 'not a WHATWG URL, still handled');
  t.is(displayUrl('mcp+stdio://github/server?token=x'), 'mcp+stdio://github/server');
  t.is(displayUrl('/api/v1/connectors/oauth/callback?code=c&state=s'), '/api/v1/connectors/oauth/callback', 'a relative reference');
  t.is(displayUrl('file:///srv/data.csv#L2'), 'file:///srv/data.csv');
  t.is(displayUrl('https://a@b:pw@host/p'), 'https://host/p', 'the last @ ends the user info');
  t.is(displayUrl('https://u:pw@host\\p?k=v'), 'https://host\\p', 'a backslash ends the authority, as WHATWG reads http(s)');
  t.is(displayUrl('urn:example:thing?secret=1'), 'urn:example:thing');
});

test('maskedUrl masks user info and the values of secret-named parameters, and keeps the rest', (t) => {
  t.is(maskedUrl(withSecrets), `https://${MASK}@mcp.example.com:8443/mcp/v1?api_key=${MASK}&region=eu&Access_Token=${MASK}#sig=${MASK}`);
  t.is(maskedUrl('https://mcp.example.com/mcp?x=1&y=2'), 'https://mcp.example.com/mcp?x=1&y=2', 'nothing secret: unchanged');
  t.is(maskedUrl('https://mcp.example.com/mcp'), 'https://mcp.example.com/mcp');
  t.is(
    maskedUrl('https://s3.example/o?X-Amz-Credential=AKIA&X-Amz-Signature=abc&X-Amz-Expires=60&apikey=k&client%5Fsecret=s&password&sig='),
    `https://s3.example/o?X-Amz-Credential=${MASK}&X-Amz-Signature=${MASK}&X-Amz-Expires=60&apikey=${MASK}&client%5Fsecret=${MASK}&password&sig=${MASK}`,
  );
  t.is(maskedUrl('https://h/p?a=1;session_id=s2'), `https://h/p?a=1;session_id=${MASK}`);
});

test('secret names: the listed substrings, in any case, percent-encoded or not; and only those', (t) => {
  for (const name of ['key', 'API_KEY', 'apikey', 'x-api-key', 'access_token', 'token', 'client_secret', 'password', 'passwd', 'pwd',
    'auth', 'Authorization', 'signature', 'sig', 'credential', 'code', 'sessionid', 'jwt', 'ticket', 'private_key', 'api%5Fkey', '%ZZ']) {
    t.true(isSecretName(name), name);
  }
  for (const name of ['region', 'limit', 'workspace', 'q', 'format', 'version']) t.false(isSecretName(name), name);
});
