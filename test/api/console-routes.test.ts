// The console's pages and files as the API serves them, on a Koa app with the real caller
// middleware (API keys on): open without a credential, a strict CSP on every one of them, only
// the files the build left (no path of the request's own reaches the disk), revalidated by ETag;
// and GET /api/v1/caller, which says who a credential is.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import Koa from 'koa';
import { sha256Hex } from '../../callers/api-keys';
import { createAuthenticator } from '../../callers/authenticator';
import { callerMiddleware } from '../../api/caller-middleware';
import { loadConsoleFiles } from '../../api/console-files';
import { problemMiddleware } from '../../api/problem-middleware';
import { callerHandlers } from '../../api/routes/caller';
import { consoleHandlers } from '../../api/routes/console';
import { routerOf } from '../../api/router';
import { createLogger } from '../../platform/logger';
import { loadConfig } from '../../config/config';
import { freePortBelowEphemeral } from '../../service/free-port';

const KEY = 'console-test-key-0123456789';
let base: string;
let server: http.Server;

test.before(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'console-files-'));
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>console</title>');
  fs.writeFileSync(path.join(dir, 'reference.html'), '<!doctype html><title>reference</title>');
  fs.writeFileSync(path.join(dir, 'app.js'), 'export {};');
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'not a console file type');
  fs.writeFileSync(path.join(os.tmpdir(), 'outside-console.js'), 'secret');
  const app = new Koa();
  app.use(problemMiddleware(createLogger('test', 'silent')));
  const auth = createAuthenticator({ enabled: true, apiKeys: [{ subject: 'ann', sha256: sha256Hex(KEY), admin: false }], jwt: null }, fetch);
  app.use(callerMiddleware(auth));
  const signIn = { issuer: 'https://id.example.com/realm', clientId: 'console', audience: 'https://registry.example.com', scope: 'openid' };
  const port = await freePortBelowEphemeral();
  base = `http://127.0.0.1:${port}`;
  app.use(routerOf({ ...callerHandlers(true), ...consoleHandlers(loadConsoleFiles(dir), { signIn, origin: { baseUrl: base, allowedOrigins: [], authEnabled: true } }) }).routes());
  server = http.createServer(app.callback()).listen(port, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
});
test.after.always(() => server?.close());

test('the pages and files are open, each under a CSP with no inline script, no framing and no other origin but the identity provider', async (t) => {
  for (const [pathName, type] of [['/', 'text/html'], ['/console/app.js', 'text/javascript'], ['/console/config.json', 'application/json']] as const) {
    const res = await fetch(base + pathName);
    t.is(res.status, 200, pathName);
    t.true(res.headers.get('content-type')!.startsWith(type), pathName);
    const csp = res.headers.get('content-security-policy')!;
    t.regex(csp, /default-src 'self'/);
    t.regex(csp, /script-src 'self';/, 'scripts: the service\'s own files only (no unsafe-inline, no eval)');
    t.regex(csp, /frame-ancestors 'none'/);
    t.regex(csp, /connect-src 'self' https:\/\/id\.example\.com;/);
    t.false(csp.includes('unsafe'), pathName);
    t.is(res.headers.get('x-frame-options'), 'DENY');
    t.is(res.headers.get('x-content-type-options'), 'nosniff');
    t.is(res.headers.get('referrer-policy'), 'no-referrer');
  }
  const reference = await fetch(`${base}/reference`);
  t.is(reference.status, 200);
  const referenceCsp = reference.headers.get('content-security-policy')!;
  t.regex(referenceCsp, /script-src 'self'; style-src 'self'; img-src 'self' data:;.*frame-ancestors 'none'/, "only data: images besides the console's policy (Swagger UI's icons)");
  t.false(referenceCsp.includes('unsafe'));
});

test('the sign-in settings name the identity provider, the console client and the resource to ask for', async (t) => {
  const res = await fetch(`${base}/console/config.json`);
  t.deepEqual(await res.json(), { issuer: 'https://id.example.com/realm', client_id: 'console', resource: 'https://registry.example.com', scope: 'openid', callers_authenticated: true });
});

test('opened at an address whose requests would be refused (callers authenticated), a page says so and links BASE_URL', async (t) => {
  const { port } = new URL(base);
  for (const path of ['/', '/reference']) {
    const res = await get(path, `localhost:${port}`);
    t.is(res.status, 200, path);
    t.regex(res.body, /<h1>Open the console at its own address<\/h1>/, path);
    t.true(res.body.includes(`href="${base}${path}"`), `${path} links ${base}${path}`);
    t.regex(res.body, /callers are authenticated here/);
    t.false(res.body.includes('<script'), 'no script to be refused');
  }
  const atBase = await get('/', `127.0.0.1:${port}`);
  t.is(atBase.body, '<!doctype html><title>console</title>', 'at BASE_URL the console itself');
});

function get(path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http.get(`${base}${path}`, { headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => { body += chunk; }).on('end', () => resolve({ status: res.statusCode!, body }));
    }).on('error', reject);
  });
}

test('only files the build left are served: other types, other folders and encoded paths answer 404', async (t) => {
  for (const attempt of ['/console/notes.txt', '/console/..%2Foutside-console.js', '/console/%2e%2e/outside-console.js', '/console/missing.js', '/console/', '/console/app.js/x']) {
    const res = await fetch(base + attempt);
    t.true(res.status === 404 || res.status === 401, `${attempt} -> ${res.status}`);
    t.false((await res.text()).includes('secret'), attempt);
  }
});

test('a file is revalidated by its ETag (304), so a new build is seen at once', async (t) => {
  const first = await fetch(`${base}/console/app.js`);
  t.is(first.headers.get('cache-control'), 'no-cache');
  const etag = first.headers.get('etag')!;
  t.truthy(etag);
  // node:http, not fetch: fetch may add its own cache headers to a conditional request.
  const again = await new Promise<number>((resolve, reject) => {
    http.get(`${base}/console/app.js`, { headers: { 'if-none-match': etag } }, (res) => { res.resume(); resolve(res.statusCode!); }).on('error', reject);
  });
  t.is(again, 304);
});

test('GET /api/v1/caller needs a credential and says who it is', async (t) => {
  t.is((await fetch(`${base}/api/v1/caller`)).status, 401);
  const res = await fetch(`${base}/api/v1/caller`, { headers: { authorization: `Bearer ${KEY}` } });
  t.is(res.status, 200);
  t.deepEqual(await res.json(), { subject: 'key:ann', name: 'ann', admin: false, authenticated: true });
});

test('CONNECTOR__CONSOLE_CLIENT_ID needs an issuer, and sends its audience as the resource', (t) => {
  const env = { CONNECTOR__CONSOLE_CLIENT_ID: 'console', DATA_DIR: os.tmpdir() };
  t.throws(() => loadConfig(env), { message: /CONNECTOR__CONSOLE_CLIENT_ID: needs CONNECTOR__AUTH_ISSUER/ });
  const config = loadConfig({ ...env, CONNECTOR__AUTH_ISSUER: 'https://id.example.com/', BASE_URL: 'https://registry.example.com' });
  t.deepEqual(config.console, { issuer: 'https://id.example.com', clientId: 'console', audience: 'https://registry.example.com', scope: 'openid' });
  t.is(loadConfig({ DATA_DIR: os.tmpdir() }).console, null);
});
