// DPoP proofs as RFC 9449 section 4.2 has them, checked with jose (not with the code under test):
// a JWT of type dpop+jwt signed with the key its header names (public part only), htm, htu
// without query or fragment, ath = base64url(SHA-256(token)), a unique jti and the current iat;
// and the nonce rules of section 9 (kept per origin, a refused request sent again once).
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import { dpopProof, generateDpopKeyJwk, openDpopKey, proofUri, tokenHash } from '../../platform/dpop-proof';
import { DpopNonces, asksForNonce, dpopFetch } from '../../platform/dpop-nonces';

const key = openDpopKey(generateDpopKeyJwk());

async function verified(proof: string) {
  const header = decodeProtectedHeader(proof);
  const { payload } = await jwtVerify(proof, await importJWK(header.jwk as JWK, 'ES256'), { typ: 'dpop+jwt', algorithms: ['ES256'] });
  return { header, payload };
}

test('a proof is an ES256 dpop+jwt signed by the public key in its header, which carries no private part', async (t) => {
  const { header } = await verified(dpopProof(key, { htm: 'POST', htu: 'https://mcp.example/mcp' }));
  t.is(header.alg, 'ES256');
  t.is(header.typ, 'dpop+jwt');
  t.deepEqual(Object.keys(header.jwk!).sort(), ['crv', 'kty', 'x', 'y']);
  t.is(key.thumbprint, await calculateJwkThumbprint(header.jwk as JWK, 'sha256'));
});

test('htm, htu without query or fragment, ath of the token, nonce, iat now', async (t) => {
  const token = 'eyJ.token-value.sig';
  const before = Math.floor(Date.now() / 1000);
  const proof = dpopProof(key, { htm: 'DELETE', htu: proofUri('https://mcp.example:8443/a/mcp?tenant=x#frag'), token, nonce: 'n-1' });
  const { payload } = await verified(proof);
  t.is(payload.htm, 'DELETE');
  t.is(payload.htu, 'https://mcp.example:8443/a/mcp');
  t.is(payload.ath, crypto.createHash('sha256').update(token).digest('base64url'));
  t.is(payload.ath, tokenHash(token));
  t.is(payload.nonce, 'n-1');
  t.true(payload.iat! >= before && payload.iat! <= Math.floor(Date.now() / 1000));
});

test('a proof without a token has no ath, and without a nonce no nonce', async (t) => {
  const { payload } = await verified(dpopProof(key, { htm: 'POST', htu: 'https://as.example/token' }));
  t.false('ath' in payload);
  t.false('nonce' in payload);
});

test('every proof has its own jti', async (t) => {
  const jtis = new Set<unknown>();
  for (let i = 0; i < 50; i++) jtis.add((await verified(dpopProof(key, { htm: 'POST', htu: 'https://mcp.example/mcp' }))).payload.jti);
  t.is(jtis.size, 50);
});

test('a key that is not a P-256 private key is refused', (t) => {
  const rsa = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
  t.throws(() => openDpopKey(JSON.stringify(rsa)));
  const { d: _d, ...publicOnly } = JSON.parse(generateDpopKeyJwk()) as Record<string, string>;
  t.throws(() => openDpopKey(JSON.stringify(publicOnly)));
});

test('asksForNonce: a 401 with a DPoP use_dpop_nonce challenge, nothing else', (t) => {
  t.true(asksForNonce(401, 'DPoP error="use_dpop_nonce", error_description="nonce"'));
  t.true(asksForNonce(401, ['Bearer realm="x"', 'DPoP error="use_dpop_nonce"']));
  t.false(asksForNonce(401, 'DPoP error="invalid_token"'));
  t.false(asksForNonce(401, 'Bearer error="use_dpop_nonce"'));
  t.false(asksForNonce(400, 'DPoP error="use_dpop_nonce"'));
  t.false(asksForNonce(401, undefined));
});

test('nonces: the last per origin, refused when not an NQCHAR string, the oldest origin forgotten past the bound', (t) => {
  const nonces = new DpopNonces(2);
  t.true(nonces.note('https://a', 'one'));
  t.true(nonces.note('https://a', 'two'));
  t.is(nonces.get('https://a'), 'two');
  t.false(nonces.note('https://a', 'with "quote'));
  t.false(nonces.note('https://a', undefined));
  t.is(nonces.get('https://a'), 'two');
  nonces.note('https://b', 'b');
  nonces.note('https://c', 'c');
  t.is(nonces.get('https://a'), undefined);
  t.is(nonces.get('https://c'), 'c');
});

test('dpopFetch: the DPoP scheme with a proof per request; a use_dpop_nonce 401 sent again once with the nonce, which later requests carry', async (t) => {
  const seen: { authorization?: string; proof: Record<string, unknown> }[] = [];
  const server = http.createServer(async (req, res) => {
    const proof = req.headers.dpop as string;
    const { payload } = await verified(proof);
    seen.push({ authorization: req.headers.authorization, proof: payload });
    if (payload.nonce !== 'server-nonce') {
      res.writeHead(401, { 'www-authenticate': 'DPoP error="use_dpop_nonce"', 'dpop-nonce': 'server-nonce' }).end();
      return;
    }
    req.resume().on('end', () => res.writeHead(200).end('ok'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp?x=1`;
  const fetchDpop = dpopFetch(fetch, key, 'the-token', new DpopNonces());

  const first = await fetchDpop(url, { method: 'POST', body: '{}' });
  t.is(first.status, 200);
  t.is(await first.text(), 'ok');
  const second = await fetchDpop(url, { method: 'POST', body: '{}' });
  t.is(second.status, 200);
  t.is(seen.length, 3, 'one refusal, its retry, and a request that carried the kept nonce at once');
  t.true(seen.every((s) => s.authorization === 'DPoP the-token'));
  t.deepEqual(seen.map((s) => s.proof.nonce), [undefined, 'server-nonce', 'server-nonce']);
  t.true(seen.every((s) => s.proof.htu === url.replace('?x=1', '') && s.proof.htm === 'POST' && s.proof.ath === tokenHash('the-token')));
  t.is(new Set(seen.map((s) => s.proof.jti)).size, 3);
});

test('dpopFetch: a server that keeps asking for a nonce gets one retry, then its 401', async (t) => {
  let requests = 0;
  const server = http.createServer((_req, res) => {
    requests++;
    res.writeHead(401, { 'www-authenticate': 'DPoP error="use_dpop_nonce"', 'dpop-nonce': `n${requests}` }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const answer = await dpopFetch(fetch, key, 't', new DpopNonces())(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, { method: 'POST', body: '{}' });
  t.is(answer.status, 401);
  t.is(requests, 2);
});
