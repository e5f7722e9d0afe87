// A stdio preset defined only by its image, as the specification defines one, connected on one
// machine with the default runtime (`auto` picks the container engine here), called through the
// proxy, disconnected and deleted: its container comes and goes with it. Without podman or Docker
// the tests say they skipped, and why.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { containerName } from '../../activities/workloads/container-run-args';
import { createLogger } from '../../platform/logger';
import { testServersImage, type TestImage } from '../helpers/container-images';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';
import { withoutEngine } from '../helpers/engine-gate';

const exec = promisify(execFile);
const TOKEN = 'container-token-5c1f0a';
let image: TestImage;
let stack: TestStack | undefined;

test.before(async () => {
  image = await testServersImage(createLogger('test-stdio-container', 'silent'));
  if (!image.engine) return;
  stack = await startTestStack({
    CONNECTOR__STDIO_RUNTIME: 'auto',
    CONNECTOR__PRESETS: JSON.stringify([
      { url: 'mcp+stdio://everything', metadata: { name: 'Everything', description: 'reference server, in its image' },
        stdio: { image: image.image, access_token_env_name: 'EVERYTHING_TOKEN' } },
    ]),
  });
});

test.after.always(async () => {
  await stack?.stop();
});

const exists = (name: string) => exec(image.engine!.program, ['container', 'exists', name]).then(() => true, () => false);

test.serial('an image-only preset is runnable, connects, answers through the proxy, and its container goes with disconnect and delete', async (t) => {
  if (!stack) {
    withoutEngine(t, (image as { reason: string }).reason);
    return;
  }
  const presets = await stack.api('GET', '/api/v1/connectors/presets');
  t.like(presets.body.items[0], { url: 'mcp+stdio://everything', runnable: true });

  const { body: created } = await stack.api('POST', '/api/v1/connectors', { url: 'mcp+stdio://everything' });
  const began = performance.now();
  const connected = await stack.api('POST', `/api/v1/connectors/${created.id}/connect`, { access_token: TOKEN });
  t.log(`connect of a container stdio connector: ${(performance.now() - began).toFixed(0)} ms`);
  t.is(connected.status, 200, connected.text);
  t.is(connected.body.state, 'connected');
  t.true(await exists(containerName(created.id)), 'the server runs in its container');

  const client = new Client({ name: 'stdio-container-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(created.mcp_url)));
  const env = JSON.stringify((await client.callTool({ name: 'get-env', arguments: {} })).content);
  t.true(env.includes(TOKEN), 'the token reaches the container under access_token_env_name');
  await client.close();

  const disconnected = await stack.api('POST', `/api/v1/connectors/${created.id}/disconnect`);
  t.is(disconnected.body.state, 'disconnected');
  // Bounds for a loaded machine: a removal waits on the engine, which the other test files keep busy.
  await eventually(async () => ((await exists(containerName(created.id))) ? undefined : true), 90_000, 'the container to go');

  t.is((await stack.api('POST', `/api/v1/connectors/${created.id}/connect`, { access_token: TOKEN })).body.state, 'connected');
  t.true(await exists(containerName(created.id)));
  t.is((await stack.api('DELETE', `/api/v1/connectors/${created.id}`)).status, 202);
  await eventually(async () => ((await stack!.api('GET', `/api/v1/connectors/${created.id}`)).status === 404 ? true : undefined), 90_000, 'the delete');
  t.false(await exists(containerName(created.id)), 'delete removes the container');
});
