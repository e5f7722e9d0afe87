// The attach source through the real @kubernetes/client-node Attach client, against a local
// STAND-IN for the API server's attach endpoint (see support/attach-stand-in.ts): the channel
// framing, the request the gateway makes, and the exit status, with real stdio servers behind it.
import test from 'ava';
import { AttachSource, parseExitCode } from '../../gateway/attach-source';
import { startGateway } from '../../gateway/start-gateway';
import { startAttachStandIn } from './support/attach-stand-in';
import { connect } from './support/clients';
import { MEMORY_SERVER, quietLogger, SCRIPTED_SERVER } from './support/stdio-servers';

const TARGET = { namespace: 'tools', pod: 'connector-abc-7f9c', container: 'mcp-server' };

test('serves server-memory in a "sibling container" reached over the attach protocol (stand-in)', async (t) => {
  const standIn = await startAttachStandIn([process.execPath, MEMORY_SERVER]);
  t.teardown(() => standIn.close());
  const source = new AttachSource({ ...TARGET, kubeConfig: standIn.kubeConfig() });
  const gateway = await startGateway({ source, port: 0, logger: quietLogger });
  t.teardown(() => gateway.close());
  await gateway.ready;

  const path = new URL(standIn.requests[0] ?? '', 'http://stand-in.invalid');
  t.is(path.pathname, '/api/v1/namespaces/tools/pods/connector-abc-7f9c/attach');
  t.deepEqual(Object.fromEntries(path.searchParams), {
    container: 'mcp-server', stdin: 'true', stdout: 'true', stderr: 'true', tty: 'false',
  });

  const { client } = await connect(gateway.url, 'attached-client');
  t.is(client.getServerVersion()?.name, 'memory-server');
  await client.callTool({
    name: 'create_entities',
    arguments: { entities: [{ name: 'attach', entityType: 'stream', observations: ['crossed the channel framing'] }] },
  });
  const graph = await client.callTool({ name: 'read_graph', arguments: {} });
  t.regex(JSON.stringify(graph.content), /crossed the channel framing/);
  await client.close();
});

test('reads the exit code from the status channel when the attached server exits (stand-in)', async (t) => {
  const standIn = await startAttachStandIn([process.execPath, '--import', 'tsx', SCRIPTED_SERVER]);
  t.teardown(() => standIn.close());
  const source = new AttachSource({ ...TARGET, kubeConfig: standIn.kubeConfig() });
  const gateway = await startGateway({ source, port: 0, logger: quietLogger });
  t.teardown(() => gateway.close());
  const { client } = await connect(gateway.url, 'attached-crasher');
  await t.throwsAsync(client.callTool({ name: 'crash', arguments: { code: 3 } }), { message: /exited with code 3/ });
  t.deepEqual(await gateway.exited, { code: 3, signal: null, reason: 'stdio server exited with code 3' });
  t.is((await fetch(new URL('/healthz', gateway.url))).status, 503);
  await client.close();
});

test('an attach the API server refuses is reported as the exit reason (stand-in)', async (t) => {
  const standIn = await startAttachStandIn([process.execPath, MEMORY_SERVER], 'mcp-server');
  t.teardown(() => standIn.close());
  const source = new AttachSource({ ...TARGET, kubeConfig: standIn.kubeConfig() });
  const gateway = await startGateway({ source, port: 0, logger: quietLogger });
  t.teardown(() => gateway.close());
  const exit = await gateway.exited;
  t.regex(exit.reason, /^attach to container mcp-server failed: .*403/);
  t.like(gateway.health(), { ok: false, state: 'exited' });
});

test('close() closes the attach stream and leaves the container alone', async (t) => {
  const standIn = await startAttachStandIn([process.execPath, MEMORY_SERVER]);
  t.teardown(() => standIn.close());
  const source = new AttachSource({ ...TARGET, kubeConfig: standIn.kubeConfig() });
  const gateway = await startGateway({ source, port: 0, logger: quietLogger });
  await gateway.ready;
  await gateway.close();
  t.is((await gateway.exited).reason, 'attach stream was closed by the gateway');
  const container = standIn.processes[0];
  t.true(container !== undefined && container.exitCode === null && container.signalCode === null);
});

test('status frames: success is 0, a failure carries its ExitCode cause, anything else is unknown', (t) => {
  t.is(parseExitCode(Buffer.from('{"status":"Success"}')), 0);
  const failure = { status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '137' }] } };
  t.is(parseExitCode(Buffer.from(JSON.stringify(failure))), 137);
  t.is(parseExitCode(Buffer.from('{"status":"Failure","message":"container not found"}')), null);
  t.is(parseExitCode(Buffer.from('not json')), null);
});
