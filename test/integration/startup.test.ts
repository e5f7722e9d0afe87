// Start-up: a bad configuration stops `npm start` at once with a message naming the variable;
// CONNECTOR__BLOCK_PRIVATE_NETWORKS refuses loopback connector URLs; the readable log's banner
// names addresses that answer; the Temporal Web UI (no sign-in) runs only when asked for.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { freePortBelowEphemeral } from '../../service/free-port';
import { startStackProcess } from '../helpers/stack-process';
import { createLogger } from '../../platform/logger';
import { startEmbeddedStack } from '../../stack/embedded-stack';
import { startTestStack } from '../helpers/test-stack';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function startWith(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'connector-registry-startup-'));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'stack/embedded.ts'], {
      cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir, PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    // 'close', not 'exit': 'exit' can come before the last output has been read from the pipes.
    child.on('close', (code) => resolve({ code, output }));
  });
}

for (const [name, value, expected] of [
  ['PORT', 'eighty', /PORT/],
  ['CONNECTOR__PRESETS', JSON.stringify([{ url: 'mcp+stdio://x' }]), /CONNECTOR__PRESETS entry 0 \(mcp\+stdio:\/\/x\), field stdio/],
  ['CONNECTOR__PRESETS', JSON.stringify([{ url: 'https://a.example', stdio: { image: 'i' } }]), /entry 0 .*field stdio/],
  ['CONNECTOR__ENCRYPTION_KEY', 'too-short', /CONNECTOR__ENCRYPTION_KEY/],
  ['MONGODB_URI', 'postgres://x', /MONGODB_URI/],
  ['LOG_FORMAT', 'xml', /LOG_FORMAT/],
] as const) {
  test(`${name}=${value.slice(0, 30)} stops start-up naming it`, async (t) => {
    const { code, output } = await startWith({ [name]: value });
    t.is(code, 1);
    t.regex(output, expected);
    t.regex(output, /configuration error/);
  });
}

test('CONNECTOR__BLOCK_PRIVATE_NETWORKS=true refuses loopback and private connector URLs with 422', async (t) => {
  const stack = await startTestStack({ CONNECTOR__BLOCK_PRIVATE_NETWORKS: 'true' });
  t.teardown(() => stack.stop());
  for (const url of ['http://127.0.0.1:1/mcp', 'http://[::1]:1/mcp', 'http://10.0.0.1/mcp', 'http://192.168.1.1/mcp']) {
    const res = await stack.api('POST', '/api/v1/connectors', { url });
    t.is(res.status, 422, url);
    t.regex(res.body.detail, /refused/);
  }
});

test('by default the embedded Temporal runs without its Web UI, and nothing names one', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'connector-registry-headless-'));
  const logFile = path.join(dataDir, 'logs', 'stack.log');
  const port = await freePortBelowEphemeral();
  const env = { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', BASE_URL: `http://127.0.0.1:${port}` };
  const stack = await startEmbeddedStack({ env, logger: createLogger('headless-test', 'info', logFile), temporalPort: 0, mongoPort: 0 });
  t.teardown(() => stack.stop());
  t.is(stack.temporalUiUrl, undefined);
  const log = fs.readFileSync(logFile, 'utf8');
  t.regex(log, /Temporal dev server at 127\.0\.0\.1:\d+"/, 'the dev server says where it is, and no Web UI after it');
  t.notRegex(log, /Web UI|uiUrl/);
});

test('npm start with CONNECTOR__TEMPORAL_UI=true and readable logs prints a banner whose console, API reference, API, OpenAPI and Temporal Web UI addresses answer', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'connector-registry-banner-'));
  const logFile = path.join(dataDir, 'logs', 'stack.log');
  const port = await freePortBelowEphemeral();
  // LOG_FORMAT=pretty stands in for a terminal (test/stack/log-format.test.ts runs one).
  const env = { DATA_DIR: dataDir, PORT: String(port), BASE_URL: `http://127.0.0.1:${port}`, LOG_FORMAT: 'pretty', CONNECTOR__TEMPORAL_UI: 'true' };
  const stack = await startStackProcess({ env, logFile, readyLogLine: 'Temporal Web UI' });
  t.teardown(() => stack.stop());
  const log = fs.readFileSync(logFile, 'utf8').replace(/\u001b\[[0-9;]*m/g, '');
  const address = (label: string) => new RegExp(`^ +${label} +(\\S+)$`, 'm').exec(log)?.[1];
  t.is(address('API'), `http://127.0.0.1:${port}`);
  t.is(address('OpenAPI'), `http://127.0.0.1:${port}/api/v1/openapi.json`);
  const openapi = await fetch(address('OpenAPI')!);
  t.is(openapi.status, 200);
  t.is(((await openapi.json()) as { openapi: string }).openapi, '3.1.0');
  // The compiled stack serves the console built beside it (dist/console).
  t.is(address('Console'), `http://127.0.0.1:${port}/`);
  const consolePage = await fetch(address('Console')!);
  t.is(consolePage.status, 200);
  t.regex(consolePage.headers.get('content-type') ?? '', /^text\/html/);
  t.regex(consolePage.headers.get('content-security-policy') ?? '', /script-src 'self';.*frame-ancestors 'none'/);
  t.is((await fetch(address('API reference')!)).status, 200);
  const webUi = address('Temporal Web UI');
  t.regex(webUi ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
  t.is((await fetch(webUi!)).status, 200);
  t.false(log.split('\n').some((line) => line.startsWith('{')), 'no JSON lines');
});

test('a role that fails to start is reported with its log\'s last lines, so the cause survives its log file', async (t) => {
  const logFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'connector-registry-startup-')), 'api.log');
  const port = String(await freePortBelowEphemeral());
  const failed = await t.throwsAsync(startStackProcess({ entry: 'dist/api.mjs', env: { PORT: port, CONNECTOR__ENCRYPTION_KEY: '11'.repeat(32), TEMPORAL_ADDRESS: '', MONGODB_URI: '' }, logFile }));
  t.regex(failed?.message ?? '', /process exited with 1/);
  t.regex(failed?.message ?? '', /configuration error: .*TEMPORAL_ADDRESS/);
});
