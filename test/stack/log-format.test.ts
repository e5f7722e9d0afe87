// Which entry point logs how, run on a real terminal (a pseudo-terminal from util-linux `script`):
// `npm start` pretty unless LOG_FORMAT=json; the production entry points JSON whatever is set.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import test from 'ava';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ANSI = /\u001b\[[0-9;]*m/g;

/** Runs a TypeScript entry point with its stdout on a terminal; resolves with what it printed once it exits. */
function runOnTerminal(entry: string, env: Record<string, string>, args = ''): Promise<{ code: number | null; lines: string[] }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) =>
    !['LOG_FORMAT', 'TEMPORAL_ADDRESS', 'MONGODB_URI', 'CONNECTOR__ENCRYPTION_KEY', 'NO_COLOR', 'FORCE_COLOR'].includes(name)));
  const command = `'${process.execPath}' --import tsx ${entry} ${args}`;
  return new Promise((resolve, reject) => {
    // -e: script exits with the command's code; -f: output is flushed as it comes.
    const child = spawn('script', ['-qefc', command, '/dev/null'], { cwd: ROOT, env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    // 'close', not 'exit': 'exit' can come before the last output has been read from the pipes.
    child.on('close', (code) => resolve({ code, lines: output.replace(ANSI, '').split(/\r?\n/).filter((l) => l.trim() !== '') }));
  });
}

const isJson = (line: string) => { try { return typeof JSON.parse(line) === 'object'; } catch { return false; } };

test('npm start on a terminal prints readable lines, not JSON', async (t) => {
  const { code, lines } = await runOnTerminal('stack/embedded.ts', { PORT: 'eighty' });
  t.is(code, 1);
  const fatal = lines.find((l) => l.includes('configuration error'));
  t.truthy(fatal, lines.join('\n'));
  t.regex(fatal!, /FATAL.*configuration error: PORT/);
  t.false(isJson(fatal!));
});

test('npm start on a terminal with LOG_FORMAT=json prints JSON', async (t) => {
  const { code, lines } = await runOnTerminal('stack/embedded.ts', { PORT: 'eighty', LOG_FORMAT: 'json' });
  t.is(code, 1);
  const fatal = lines.find((l) => l.includes('configuration error'));
  t.true(isJson(fatal!), lines.join('\n'));
  t.like(JSON.parse(fatal!), { level: 60, name: 'connector-registry' });
});

for (const env of [{}, { LOG_FORMAT: 'pretty' }] as Record<string, string>[]) {
  test(`a production entry point on a terminal logs JSON (${JSON.stringify(env)})`, async (t) => {
    const { code, lines } = await runOnTerminal('service/api.ts', env);
    t.is(code, 1);
    const fatal = lines.find((l) => l.includes('configuration error'));
    t.true(isJson(fatal!), lines.join('\n'));
    t.like(JSON.parse(fatal!), { level: 60, name: 'connector-registry-api' });
  });
}

test('the gateway on a terminal logs JSON, also with LOG_FORMAT=pretty', async (t) => {
  const env = { LOG_FORMAT: 'pretty', GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: '0' };
  // A "server" that ends at once: the gateway logs that it listens, then exits with it.
  const { lines } = await runOnTerminal('gateway/main.ts', env, `-- '${process.execPath}' -e ''`);
  const listening = lines.find((l) => l.includes('gateway listening'));
  t.true(isJson(listening!), lines.join('\n'));
  t.like(JSON.parse(listening!), { level: 30, name: 'gateway' });
});
