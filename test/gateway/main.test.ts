// The entry point as a program: configured by env, serving, passing its environment on (minus its
// own settings), exiting non-zero with the reason when the stdio server exits, and failing fast on
// bad configuration.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { connect, eventually } from './support/clients';
import { EVERYTHING_SERVER, SCRIPTED_SERVER } from './support/stdio-servers';

const MAIN = fileURLToPath(new URL('../../gateway/main.ts', import.meta.url));

interface Running {
  child: ChildProcess;
  url: Promise<string>;
  stderr: () => string;
}

function runMain(env: Record<string, string>, argv: string[] = []): Running {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...argv], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const record = JSON.parse(line) as { msg?: string; url?: string };
      if (record.msg === 'gateway listening' && record.url) resolve(record.url);
    });
    child.once('exit', () => reject(new Error(`gateway exited before listening: ${stderr}`)));
  });
  url.catch(() => undefined);
  return { child, url, stderr: () => stderr };
}

test('serves the command from GATEWAY_COMMAND and exits with the reason when the server exits', async (t) => {
  const running = runMain({ GATEWAY_COMMAND: JSON.stringify([process.execPath, '--import', 'tsx', SCRIPTED_SERVER]) });
  t.teardown(() => running.child.kill('SIGKILL'));
  const url = await running.url;
  await eventually(async () => (await fetch(new URL('/healthz', url))).ok || undefined, 'health 200');
  const { client } = await connect(url, 'main-client');
  t.is(client.getServerVersion()?.name, 'scripted-stdio-server');

  const exited = once(running.child, 'exit');
  await t.throwsAsync(client.callTool({ name: 'crash', arguments: { code: 5 } }));
  const [code] = await exited;
  t.is(code, 5);
  t.regex(running.stderr(), /stdio server exited with code 5/);
  await client.close();
});

test('passes its environment to the server, except its own GATEWAY_ settings; SIGTERM stops it cleanly', async (t) => {
  const running = runMain({ SERVER_SETTING: 'for-the-server' }, ['--', process.execPath, EVERYTHING_SERVER, 'stdio']);
  t.teardown(() => running.child.kill('SIGKILL'));
  const { client } = await connect(await running.url, 'env-client');
  const result = await client.callTool({ name: 'get-env', arguments: {} });
  const [content] = result.content as Array<{ text: string }>;
  const env = JSON.parse(content?.text ?? '{}') as Record<string, string>;
  t.is(env.SERVER_SETTING, 'for-the-server');
  t.false(Object.keys(env).some((name) => name.startsWith('GATEWAY_')));
  await client.close();

  const exited = once(running.child, 'exit');
  running.child.kill('SIGTERM');
  t.is((await exited)[0], 0);
});

test('bad configuration stops it at once, naming the variable', async (t) => {
  const running = runMain({ GATEWAY_SOURCE: 'attach', POD_NAMESPACE: 'tools', GATEWAY_SECRET: 's'.repeat(43) });
  const [code] = await once(running.child, 'exit');
  t.is(code, 2);
  t.regex(running.stderr(), /POD_NAME/);
  t.regex(running.stderr(), /GATEWAY_TARGET_CONTAINER/);
});
