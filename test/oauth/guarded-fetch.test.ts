// The guarded fetch: forbidden literal addresses are refused before any connection, every
// redirect hop is checked, redirects are limited, and discovery surfaces the refusal as a typed
// error. Tests use literal IPs only, so nothing depends on DNS.
import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BlockedAddressError } from '../../platform/address-guard';
import { createGuardedFetch } from '../../platform/guarded-fetch';
import { RedirectRefusedError } from '../../platform/network-policy-errors';
import { discoverAuthorization } from '../../activities/oauth/discover';
import { ForbiddenAddressError, InsecureUrlError, TooManyRedirectsError, UpstreamResponseError } from '../../activities/oauth/errors';
import { classifyError } from '../../activities/oauth/classify-error';
import { FAILURE } from '../../contract/failures';

const open = createGuardedFetch({ blockPrivateNetworks: false });
const strict = createGuardedFetch({ blockPrivateNetworks: true });
let origin: string;
let server: http.Server;
const seen: string[] = [];

test.before(async () => {
  server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/to-metadata') return redirect(res, 302, 'http://169.254.169.254/latest/meta-data/');
    if (url.pathname === '/loop') return redirect(res, 302, `/loop?n=${Number(url.searchParams.get('n') ?? 0) + 1}`);
    if (url.pathname === '/post-303') return redirect(res, 303, '/echo');
    if (url.pathname === '/post-307') return redirect(res, 307, '/echo');
    if (url.pathname === '/echo') return void collect(req).then((body) => json(res, { method: req.method, body }));
    json(res, { ok: true });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.after.always(async () => {
  await Promise.all([open.close(), strict.close()]);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

test('a cloud metadata address is refused before any connection is made', async (t) => {
  const error = await t.throwsAsync(open('http://169.254.169.254/latest/meta-data/'), { instanceOf: BlockedAddressError });
  t.is(error.address, '169.254.169.254');
  t.regex(error.message, /linkLocal address, which is never contacted/);
  await t.throwsAsync(open('http://[::ffff:169.254.169.254]/'), { instanceOf: BlockedAddressError });
  await t.throwsAsync(open('http://[fd00:ec2::254]/'), { instanceOf: BlockedAddressError, message: /cloud metadata/ });
});

test('a metadata URL in a challenge that points at 169.254.169.254 fails discovery with a typed 422', async (t) => {
  const error = await t.throwsAsync(discoverAuthorization({
    serverUrl: `${origin}/mcp`,
    challenge: { resourceMetadata: 'http://169.254.169.254/.well-known/oauth-protected-resource', scope: null, error: null, errorDescription: null },
  }, { fetch: open }), { instanceOf: ForbiddenAddressError });
  t.is(error.failure, FAILURE.unprocessable);
  t.false(error.retryable);
  t.regex(error.message, /169\.254\.169\.254/);
  t.false(seen.some((line) => line.includes('oauth-protected-resource')), 'no fallback to the well-known locations');
});

test('each redirect hop is checked: a redirect to the metadata address is refused', async (t) => {
  const error = await t.throwsAsync(open(`${origin}/to-metadata`), { instanceOf: BlockedAddressError });
  t.is(error.address, '169.254.169.254');
  t.true(seen.includes('GET /to-metadata'));
});

test('loopback is refused when private networks are blocked', async (t) => {
  const error = await t.throwsAsync(strict(`${origin}/`), { instanceOf: BlockedAddressError });
  t.regex(error.message, /loopback address, refused by CONNECTOR__BLOCK_PRIVATE_NETWORKS/);
  t.true(classifyError(error, 'the probe') instanceof ForbiddenAddressError);
});

test('redirects are followed at most five times; the OAuth family says so as too many redirects', async (t) => {
  const error = await t.throwsAsync(open(`${origin}/loop`), { instanceOf: RedirectRefusedError });
  t.is(error.refusal, 'too-many');
  t.regex(error.message, /more than 5 redirects/);
  const classified = classifyError(error, 'the probe');
  t.true(classified instanceof TooManyRedirectsError);
  t.is(classified.message, error.message);
  t.true(seen.includes('GET /loop?n=5'));
  t.false(seen.includes('GET /loop?n=6'));
});

test('each refusal of a redirect becomes its OAuth error, with the same message', (t) => {
  const cases = [['insecure', InsecureUrlError], ['too-many', TooManyRedirectsError], ['not-allowed', UpstreamResponseError], ['scheme', UpstreamResponseError]] as const;
  for (const [refusal, kind] of cases) {
    const classified = classifyError(new RedirectRefusedError(refusal, `refused: ${refusal}`), 'the probe');
    t.true(classified instanceof kind, refusal);
    t.is(classified.message, `refused: ${refusal}`);
  }
});

test('a 303 turns a POST into a GET; a 307 keeps method and body', async (t) => {
  const after303 = await open(`${origin}/post-303`, { method: 'POST', body: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.deepEqual(await after303.json(), { method: 'GET', body: '' });
  const after307 = await open(`${origin}/post-307`, { method: 'POST', body: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.deepEqual(await after307.json(), { method: 'POST', body: 'a=1' });
});

test('redirect: manual hands the redirect back untouched', async (t) => {
  const response = await open(`${origin}/to-metadata`, { redirect: 'manual' });
  t.is(response.status, 302);
  t.is(response.headers.get('location'), 'http://169.254.169.254/latest/meta-data/');
});

function redirect(res: http.ServerResponse, status: number, location: string) {
  res.writeHead(status, { location });
  res.end();
}

function json(res: http.ServerResponse, body: unknown) {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function collect(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}
