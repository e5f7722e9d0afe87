// The container runtime never contacts a registry, not even by DNS: started in a network
// namespace of its own with nothing but loopback (no route, no resolver), a stdio server whose
// image is named without a registry (a short name, which podman would otherwise resolve against
// docker.io) starts and answers. Without podman the test says it skipped, and why.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { createLogger } from '../../platform/logger';
import { systemProgram } from '../../activities/workloads/system-program';
import { testServersImage } from '../helpers/container-images';
import { withoutEngine } from '../helpers/engine-gate';

const exec = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('./support/offline-start.ts', import.meta.url));

test('with the network unreachable, an image named without a registry starts and serves its tools; a missing one is not looked for', async (t) => {
  const image = await testServersImage(createLogger('test-container-offline', 'silent'));
  if (!image.engine || image.engine.program !== 'podman') {
    withoutEngine(t, image.engine ? 'the engine is not podman' : image.reason);
    return;
  }
  const short = image.image.replace(/^localhost\//, '');
  t.not(short, image.image, 'a name with no registry in it');
  const { stdout } = await exec(systemProgram('unshare'), [
    '--net', '--', '/bin/sh', '-c', '"$1" link set lo up && "$1" -br addr && exec "$2" --import tsx "$3" "$4" "$5" "$6"',
    'offline', systemProgram('ip'), process.execPath, SCRIPT, short, randomUUID(), `offline-${randomUUID().slice(0, 8)}`,
  ], { timeout: 120_000 });
  const [addresses, result] = stdout.trim().split('\n').reduce<[string[], string]>(([a, r], line) => (line.startsWith('{') ? [a, line] : [[...a, line], r]), [[], '']);
  t.deepEqual(addresses.map((l) => l.split(/\s+/)[0]), ['lo'], 'nothing but loopback in that namespace');
  const answer = JSON.parse(result) as { tools?: number; error?: string; missing?: string };
  t.is(answer.error, undefined);
  t.true((answer.tools ?? 0) > 0, `the server's tools: ${result}`);
  t.regex(answer.missing ?? '', /^the image mcp\/missing-\S+ is not on this machine, and the container runtime pulls no image \(CONNECTOR__CONTAINER_PULL=missing allows it\)$/,
    'a missing image is not looked for in a registry (no pull, no lookup of docker.io)');
});
