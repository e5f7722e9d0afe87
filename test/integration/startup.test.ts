// Start-up: a bad configuration stops `npm start` at once with a message naming the variable;
// CONNECTOR__BLOCK_PRIVATE_NETWORKS refuses loopback connector URLs.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
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
    child.on('exit', (code) => resolve({ code, output }));
  });
}

for (const [name, value, expected] of [
  ['PORT', 'eighty', /PORT/],
  ['CONNECTOR__PRESETS', JSON.stringify([{ url: 'mcp+stdio://x' }]), /CONNECTOR__PRESETS entry 0 \(mcp\+stdio:\/\/x\), field stdio/],
  ['CONNECTOR__PRESETS', JSON.stringify([{ url: 'https://a.example', stdio: { image: 'i' } }]), /entry 0 .*field stdio/],
  ['CONNECTOR__ENCRYPTION_KEY', 'too-short', /CONNECTOR__ENCRYPTION_KEY/],
  ['MONGODB_URI', 'postgres://x', /MONGODB_URI/],
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
