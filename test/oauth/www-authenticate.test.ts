// WWW-Authenticate parsing (RFC 9110 section 11.6.1): several challenges, quoted strings, token68.
import test from 'ava';
import { findBearerChallenge, parseWwwAuthenticate } from '../../contract/www-authenticate';

test('a Bearer challenge with quoted parameters', (t) => {
  const challenge = findBearerChallenge('Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read files:write"');
  t.deepEqual(challenge, {
    resourceMetadata: 'https://mcp.example.com/.well-known/oauth-protected-resource',
    scope: 'files:read files:write',
    error: null,
    errorDescription: null,
  });
});

test('quoted strings keep commas, equals signs and escaped quotes', (t) => {
  const challenge = findBearerChallenge('Bearer error="invalid_token", error_description="bad, \\"expired\\" token=x", scope=read');
  t.is(challenge?.error, 'invalid_token');
  t.is(challenge?.errorDescription, 'bad, "expired" token=x');
  t.is(challenge?.scope, 'read');
});

test('several challenges in one header, Bearer not first, names case-insensitive', (t) => {
  const header = 'Basic realm="simple", DPoP algs="ES256 PS256", BEARER Resource_Metadata="https://m.example/prm", realm="mcp"';
  const challenges = parseWwwAuthenticate(header);
  t.deepEqual(challenges.map((c) => c.scheme), ['basic', 'dpop', 'bearer']);
  t.deepEqual(challenges[1]?.params, { algs: 'ES256 PS256' });
  t.is(findBearerChallenge(header)?.resourceMetadata, 'https://m.example/prm');
});

test('token68 credentials, bare schemes and separate headers joined by commas', (t) => {
  const challenges = parseWwwAuthenticate('Negotiate, Basic dGVzdDoxMjM=, Bearer realm="x",scope="a"');
  t.deepEqual(challenges, [
    { scheme: 'negotiate', params: {} },
    { scheme: 'basic', params: {}, token68: 'dGVzdDoxMjM=' },
    { scheme: 'bearer', params: { realm: 'x', scope: 'a' } },
  ]);
});

test('a bare Bearer, no Bearer, garbage and an empty header', (t) => {
  t.deepEqual(findBearerChallenge('Bearer'), { resourceMetadata: null, scope: null, error: null, errorDescription: null });
  t.is(findBearerChallenge('Basic realm="x"'), null);
  t.is(findBearerChallenge(null), null);
  t.is(findBearerChallenge(''), null);
  t.deepEqual(parseWwwAuthenticate('Bearer scope="a" ;;; junk'), [{ scheme: 'bearer', params: { scope: 'a' } }]);
  t.deepEqual(parseWwwAuthenticate('Bearer scope="unterminated'), [{ scheme: 'bearer', params: { scope: 'unterminated' } }]);
});

test('the first occurrence of a parameter wins', (t) => {
  t.is(findBearerChallenge('Bearer scope="first", scope="second"')?.scope, 'first');
});
