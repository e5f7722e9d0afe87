// DPoP at the token endpoint (RFC 9449 sections 5 and 8): a token request made with the
// connector's key carries a proof for the token endpoint (htm POST, htu, no ath), is sent again
// once with the nonce a use_dpop_nonce refusal gives, and yields a token marked DPoP-bound; a DPoP
// token is refused where no proof was sent, a Bearer answer to a proof stays Bearer, and only
// servers that list ES256 are offered proofs. Against oidc-provider's own DPoP: the code exchange
// and the refresh both yield tokens bound to the key (cnf.jkt).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { decodeJwt, decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import { requestClientCredentialsToken } from '../../activities/oauth/client-credentials';
import { offersDpop } from '../../activities/oauth/dpop';
import { UnsupportedTokenTypeError } from '../../activities/oauth/errors';
import { AuthorizationServerMetadataSchema, type AuthorizationServerMetadata } from '../../activities/oauth/schemas';
import { toTokenSet } from '../../activities/oauth/token-set';
import { generateDpopKeyJwk, openDpopKey } from '../../platform/dpop-proof';
import { refreshTokens } from '../../activities/oauth/refresh';
import { startOidcServer } from '../fixtures/oauth/oidc-server';
import { startProtectedMcpServer } from '../fixtures/oauth/protected-mcp-server';
import { authorize, testHttp } from './flow';

const NONCE = 'as-nonce-3';

/** A token endpoint that wants a proof with its nonce, and answers with `tokenType`. */
async function tokenEndpoint(tokenType: string) {
  const proofs: Record<string, unknown>[] = [];
  const server = http.createServer((req, res) => {
    req.resume().on('end', async () => {
      const proof = req.headers.dpop as string | undefined;
      const payload = proof ? (await jwtVerify(proof, await importJWK(decodeProtectedHeader(proof).jwk as JWK, 'ES256'), { typ: 'dpop+jwt' })).payload : {};
      proofs.push(payload);
      if (proof && payload.nonce !== NONCE) {
        res.writeHead(400, { 'content-type': 'application/json', 'dpop-nonce': NONCE }).end(JSON.stringify({ error: 'use_dpop_nonce' }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: 'bound-token', token_type: tokenType, expires_in: 60 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const as: AuthorizationServerMetadata = {
    issuer: origin, authorization_endpoint: `${origin}/authorize`, token_endpoint: `${origin}/token`, dpop_signing_alg_values_supported: ['ES256'],
  };
  return { as, proofs, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const client = { clientId: 'c', clientSecret: 's', authMethod: 'client_secret_post' as const, source: 'given' as const };

test('a token request with the key: a proof for the token endpoint, sent again with the nonce, a DPoP-bound token', async (t) => {
  const endpoint = await tokenEndpoint('DPoP');
  t.teardown(endpoint.close);
  const tokens = await requestClientCredentialsToken({
    authorizationServer: endpoint.as, client, resource: 'http://127.0.0.1:1/mcp', scope: null, dpopKey: generateDpopKeyJwk(),
  }, { fetch });
  t.true(tokens.dpop);
  t.is(tokens.accessToken, 'bound-token');
  t.is(endpoint.proofs.length, 2);
  t.deepEqual(endpoint.proofs.map((p) => p.nonce), [undefined, NONCE]);
  for (const proof of endpoint.proofs) {
    t.is(proof.htm, 'POST');
    t.is(proof.htu, endpoint.as.token_endpoint);
    t.false('ath' in proof);
  }
  t.not(endpoint.proofs[0]!.jti, endpoint.proofs[1]!.jti);
});

test('a Bearer answer to a proof stays a Bearer token', async (t) => {
  const endpoint = await tokenEndpoint('Bearer');
  t.teardown(endpoint.close);
  const tokens = await requestClientCredentialsToken({
    authorizationServer: endpoint.as, client, resource: 'http://127.0.0.1:1/mcp', scope: null, dpopKey: generateDpopKeyJwk(),
  }, { fetch });
  t.false(tokens.dpop);
});

test('a DPoP token answered to a request without a proof is refused', (t) => {
  const response = { access_token: 'x', token_type: 'dpop' } as Parameters<typeof toTokenSet>[0];
  t.throws(() => toTokenSet(response, Date.now()), { instanceOf: UnsupportedTokenTypeError });
  t.true(toTokenSet(response, Date.now(), null, true).dpop);
  t.false(toTokenSet({ ...response, token_type: 'bearer' }, Date.now(), null, true).dpop);
  t.throws(() => toTokenSet({ ...response, token_type: 'mac' }, Date.now(), null, true), { instanceOf: UnsupportedTokenTypeError });
});

test('proofs are offered where the server lists ES256, and nowhere else', (t) => {
  const base = { issuer: 'https://as.example', authorization_endpoint: 'https://as.example/a', token_endpoint: 'https://as.example/t' };
  t.true(offersDpop({ ...base, dpop_signing_alg_values_supported: ['EdDSA', 'ES256'] }));
  t.false(offersDpop({ ...base, dpop_signing_alg_values_supported: ['EdDSA', 'RS256'] }));
  t.false(offersDpop(base));
  // A malformed list is no reason to refuse the whole document: it only offers no proofs.
  const malformed = AuthorizationServerMetadataSchema.parse({ ...base, dpop_signing_alg_values_supported: 'ES256' });
  t.false(offersDpop(malformed));
  t.true(offersDpop(AuthorizationServerMetadataSchema.parse({ ...base, dpop_signing_alg_values_supported: ['ES256', 7] })));
});

test('oidc-provider: the code exchange and the refresh with the key yield tokens bound to it', async (t) => {
  const as = await startOidcServer({ dpop: true });
  const mcp = await startProtectedMcpServer({ issuer: as.issuer, jwksUri: as.jwksUri, dpop: { nonce: null } });
  const http = testHttp();
  t.teardown(async () => {
    await http.close();
    await mcp.close();
    await as.close();
  });
  const jwk = generateDpopKeyJwk();
  const { thumbprint } = openDpopKey(jwk);
  t.true(offersDpop((await authorize(mcp.url, http)).discovery.authorizationServer.metadata), 'the server advertises ES256 proofs');
  const flow = await authorize(mcp.url, http, {}, jwk);
  t.true(flow.tokens.dpop);
  t.is((decodeJwt(flow.tokens.accessToken).cnf as { jkt?: string }).jkt, thumbprint);
  const input = {
    authorizationServer: flow.discovery.authorizationServer.metadata, client: flow.client.identity,
    refreshToken: flow.tokens.refreshToken!, resource: flow.discovery.resource,
  };
  const refreshed = await refreshTokens({ ...input, dpopKey: jwk }, http);
  t.true(refreshed.dpop);
  t.is((decodeJwt(refreshed.accessToken).cnf as { jkt?: string }).jkt, thumbprint);
});
