// Where the engine's client is told to find the engine: the worker's CONTAINER_HOST (podman) or
// DOCKER_HOST (Docker) becomes a flag on every call, the stdio servers' `run` included, whose
// process starts with only the server's environment.
import test from 'ava';
import { ContainerEngine, engineConnectionArgs } from '../../activities/workloads/container-engine';

test('CONTAINER_HOST makes podman a client of that socket; DOCKER_HOST does the same for Docker; neither set: no flag', (t) => {
  const env = { CONTAINER_HOST: 'unix:///run/podman/podman.sock', DOCKER_HOST: 'unix:///var/run/docker.sock' };
  t.deepEqual(engineConnectionArgs('podman', env), ['--url', 'unix:///run/podman/podman.sock']);
  t.deepEqual(engineConnectionArgs('docker', env), ['--host', 'unix:///var/run/docker.sock']);
  t.deepEqual(engineConnectionArgs('podman', { DOCKER_HOST: env.DOCKER_HOST }), [], 'the other engine\'s variable is not podman\'s');
  t.deepEqual(engineConnectionArgs('docker', {}), []);
  t.deepEqual(new ContainerEngine('podman', 1000, env).connectionArgs, ['--url', 'unix:///run/podman/podman.sock']);
});
