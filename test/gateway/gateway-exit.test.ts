// When the stdio server goes away the gateway says so everywhere: health, the exited promise,
// in-flight requests, open sessions and later requests. close() leaves no process behind.
import test from 'ava';
import { ProcessSource } from '../../gateway/process-source';
import { startGateway } from '../../gateway/start-gateway';
import { connect, eventually, INITIALIZE, post } from './support/clients';
import { liveProcessesInGroup } from './support/process-tree';
import { EVERYTHING_SERVER, everythingSource, quietLogger, scriptedSource } from './support/stdio-servers';

test('a stdio server killed from outside: health 503, exited, errors for clients', async (t) => {
  const source = everythingSource();
  const gateway = await startGateway({ source, port: 0, logger: quietLogger });
  t.teardown(() => gateway.close());
  const { client } = await connect(gateway.url, 'victim');
  let progressed!: () => void;
  const firstProgress = new Promise<void>((resolve) => (progressed = resolve));
  const call = client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 30, steps: 30 } }, undefined, {
    onprogress: () => progressed(),
  });
  await firstProgress;

  process.kill(source.pid!, 'SIGTERM');
  const exit = await gateway.exited;
  t.deepEqual(exit, { code: null, signal: 'SIGTERM', reason: 'stdio server was killed by signal SIGTERM' });
  await t.throwsAsync(call, { message: /stdio server was killed by signal SIGTERM/ });

  const health = await fetch(new URL('/healthz', gateway.url));
  t.is(health.status, 503);
  t.like(await health.json(), { state: 'exited', reason: 'stdio server was killed by signal SIGTERM' });
  const later = await t.throwsAsync<Error & { code?: number }>(client.listTools(), { message: /killed by signal SIGTERM/ });
  t.is(later?.code, 503);
  const fresh = await post(gateway.url, INITIALIZE);
  t.is(fresh.status, 503);
  t.like(await fresh.json(), { error: { message: 'stdio server was killed by signal SIGTERM' } });
  t.is(gateway.sessions().length, 0);
  await client.close();
});

test('a stdio server that exits with code 1 mid-request: the reason names the code', async (t) => {
  const gateway = await startGateway({ source: scriptedSource(), port: 0, logger: quietLogger });
  t.teardown(() => gateway.close());
  const { client } = await connect(gateway.url, 'crasher');
  await t.throwsAsync(client.callTool({ name: 'crash', arguments: { code: 1 } }), {
    message: /stdio server exited with code 1/,
  });
  t.deepEqual(await gateway.exited, { code: 1, signal: null, reason: 'stdio server exited with code 1' });
  t.like(gateway.health(), { ok: false, state: 'exited' });
  await client.close();
});

test('a stdio server that exits before initialize: ready rejects, health 503', async (t) => {
  const source = new ProcessSource({ command: process.execPath, args: ['-e', 'process.exit(4)'] });
  const gateway = await startGateway({ source, port: 0, logger: quietLogger });
  t.teardown(() => gateway.close());
  await t.throwsAsync(gateway.ready, { message: 'stdio server exited with code 4' });
  t.is((await fetch(new URL('/healthz', gateway.url))).status, 503);
});

test('a command that cannot start is reported as such', async (t) => {
  const source = new ProcessSource({ command: '/nonexistent/stdio-server' });
  const gateway = await startGateway({ source, port: 0, logger: quietLogger });
  t.teardown(() => gateway.close());
  const exit = await gateway.exited;
  t.regex(exit.reason, /^stdio server failed to start: spawn \/nonexistent\/stdio-server ENOENT/);
  t.is((await fetch(new URL('/healthz', gateway.url))).status, 503);
});

test('close() kills the whole process tree of the stdio server and stops serving', async (t) => {
  // sh stays the parent of node (the command is not its last), so the server is a grandchild.
  const source = new ProcessSource({
    command: 'sh', args: ['-c', `"${process.execPath}" "${EVERYTHING_SERVER}" stdio; exit 0`], stderr: 'ignore',
  });
  const gateway = await startGateway({ source, port: 0, logger: quietLogger });
  const { client } = await connect(gateway.url, 'tree');
  t.true((await client.listTools()).tools.length > 0);
  const group = source.pid!;
  t.true(liveProcessesInGroup(group).length >= 2, 'sh and node run in the group');

  await gateway.close();
  // close() returns once the tree is SIGKILLed and the server's output has closed; a process
  // that has closed its files may still be a moment from gone, so its end is waited for.
  await eventually(() => liveProcessesInGroup(group).length === 0 || undefined, 'the group to be gone');
  t.is((await gateway.exited).reason, 'stdio server was stopped by the gateway');
  await t.throwsAsync(fetch(new URL('/healthz', gateway.url)));
  await client.close();
});

test('close() with sessions open ends them and the server', async (t) => {
  const source = everythingSource();
  const gateway = await startGateway({ source, port: 0, logger: quietLogger });
  const sessions = await Promise.all([connect(gateway.url, 'one'), connect(gateway.url, 'two')]);
  await eventually(() => gateway.sessions().length === 2 || undefined, 'two sessions');
  await gateway.close();
  t.is(gateway.sessions().length, 0);
  await eventually(() => liveProcessesInGroup(source.pid!).length === 0 || undefined, 'the group to be gone');
  t.like(gateway.health(), { ok: false, state: 'closed' });
  await Promise.all(sessions.map((s) => s.client.close()));
});
