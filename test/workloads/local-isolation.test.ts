// Whether the local runtime may start where the service cannot isolate its servers (its own uid
// and the sandbox's namespaces): with callers authenticated it refuses (naming the container
// runtime and the settings), with callers off it runs and says once what servers can reach.
// "Cannot switch" and "no sandbox" are told to it here, not got by being non-root.
import test from 'ava';
import { ConfigError, parseUidRange } from '../../config/config';
import { createLogger } from '../../platform/logger';
import { createWorkloadRuntime, type RuntimeContext, type RuntimeConfig } from '../../activities/workloads/create-runtime';
import { localIsolation } from '../../activities/workloads/local-isolation';
import { LocalRuntime } from '../../activities/workloads/local-runtime';

const uidRange = parseUidRange('200000-265535');
const cannot = () => 'the service lacks CAP_SETUID (run it as root, or grant them)';
const can = () => null;
const noSandbox = async () => 'bwrap: Creating new namespace failed: Operation not permitted';
const sandbox = async () => null;
const noEgress = async () => 'slirp4netns is not installed';

/** A logger whose lines the test reads. */
function recordingLogger() {
  const lines: Array<{ level: number; msg: string; stdioRuntime?: string }> = [];
  const logger = createLogger('test-local-isolation', 'info', { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines, warnings: () => lines.filter((line) => line.level === 40).map((line) => line.msg) };
}

const config = (local: RuntimeConfig['local']): RuntimeConfig => ({
  runtime: 'local', readyTimeoutMs: 60_000, gatewayMaxSessions: 8, local, container: { pull: 'never', owner: 'unused' },
  kube: { namespace: 'unused', gatewayImage: 'unused', reconcileIntervalMs: 60_000, reconcileGraceMs: 120_000, proxySelector: {}, proxyNamespaceSelector: {} },
});
const told = (context: RuntimeContext): RuntimeContext => ({ checkEgress: noEgress, ...context });

test('callers authenticated, no uid switching: the local runtime refuses to start, naming the container runtime and the single-tenant opt-in', async (t) => {
  const { logger } = recordingLogger();
  const error = await t.throwsAsync(
    createWorkloadRuntime(config({ uidRange, singleTenant: false }), logger, told({ callersEnabled: true, checkUidSwitching: cannot, checkSandbox: sandbox })),
    { instanceOf: ConfigError },
  );
  t.regex(error!.message, /CONNECTOR__STDIO_RUNTIME=container, with podman or Docker/);
  t.regex(error!.message, /CONNECTOR__STDIO_SINGLE_TENANT=true/);
  t.regex(error!.message, /lacks CAP_SETUID/, 'says why it cannot isolate');
  await t.throwsAsync(localIsolation({ uidRange, singleTenant: false, callersEnabled: true, check: cannot, sandboxCheck: sandbox, logger }), { instanceOf: ConfigError });
});

test('callers authenticated, uids but no sandbox (servers would share the network): it refuses too, saying why', async (t) => {
  const { logger } = recordingLogger();
  const error = await t.throwsAsync(
    createWorkloadRuntime(config({ uidRange, singleTenant: false }), logger, told({ callersEnabled: true, checkUidSwitching: can, checkSandbox: noSandbox })),
    { instanceOf: ConfigError },
  );
  t.regex(error!.message, /network, mount and pid namespaces \(bubblewrap\), but bwrap: Creating new namespace failed/);
  t.regex(error!.message, /CONNECTOR__STDIO_RUNTIME=container/);
});

test('unless told that callers are off, they count as authenticated: a runtime built without saying refuses too', async (t) => {
  const { logger } = recordingLogger();
  await t.throwsAsync(createWorkloadRuntime(config({ uidRange, singleTenant: false }), logger, told({ checkUidSwitching: cannot, checkSandbox: sandbox })), { instanceOf: ConfigError });
});

test('callers authenticated with the single-tenant opt-in: it starts, servers share the service uid, and it says so once', async (t) => {
  const { logger, warnings } = recordingLogger();
  const runtime = await createWorkloadRuntime(config({ uidRange, singleTenant: true }), logger, told({ callersEnabled: true, checkUidSwitching: cannot, checkSandbox: sandbox }));
  t.teardown(() => runtime.close());
  t.true(runtime instanceof LocalRuntime);
  t.deepEqual(warnings().filter((msg) => /not isolated/.test(msg)).length, 1);
});

test('callers off (the loopback default), no uid switching: it starts and warns once that servers are not isolated and reach every listener', async (t) => {
  const { logger, warnings } = recordingLogger();
  const runtime = await createWorkloadRuntime(config({ uidRange, singleTenant: false }), logger, told({ callersEnabled: false, checkUidSwitching: cannot, checkSandbox: sandbox }));
  t.teardown(() => runtime.close());
  t.true(runtime instanceof LocalRuntime);
  t.deepEqual(warnings(), ["local stdio servers run as the service's own uid and are not isolated: each can read the others' tokens and the service's secrets, and reach every listener on this machine"]);
  const isolation = await localIsolation({ uidRange, singleTenant: false, callersEnabled: false, check: cannot, sandboxCheck: sandbox, logger });
  t.like(isolation, { uidRange: null, sandbox: false }, 'servers run as the service uid');
});

test('callers off, uids but no sandbox: own uids, and a warning that they share the network', async (t) => {
  const { logger, warnings } = recordingLogger();
  t.like(await localIsolation({ uidRange, singleTenant: false, callersEnabled: false, check: can, sandboxCheck: noSandbox, logger }), { uidRange, sandbox: false });
  t.regex(warnings()[0] ?? '', /outside the sandbox: they share this machine's network and reach every listener on its loopback/);
});

test('where uids can be switched and the sandbox runs, both are used, nothing is warned, and the start says how servers run', async (t) => {
  const { logger, lines, warnings } = recordingLogger();
  t.like(await localIsolation({ uidRange, singleTenant: false, callersEnabled: true, check: can, sandboxCheck: sandbox, logger }), { uidRange, sandbox: true });
  t.like(await localIsolation({ uidRange, singleTenant: true, callersEnabled: false, check: can, sandboxCheck: sandbox, logger }), { uidRange, sandbox: true }, 'isolated whenever possible');
  t.deepEqual(warnings(), []);
  const runtime = await createWorkloadRuntime(config({ uidRange, singleTenant: false }), logger, told({ callersEnabled: true, checkUidSwitching: can, checkSandbox: sandbox }));
  t.teardown(() => runtime.close());
  const said = lines.find((line) => line.stdioRuntime !== undefined);
  t.is(said?.stdioRuntime, 'local');
  t.regex(said?.msg ?? '', /^stdio servers run as local processes: each server its own uid in namespaces of its own: no network but its own loopback/);
  t.regex(warnings()[0] ?? '', /presets that allow egress \(internet, allowed_networks\) are refused at connect/, 'no egress here: said once');
});
