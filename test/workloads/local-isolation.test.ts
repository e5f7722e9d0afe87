// Whether the local runtime may start where the service cannot run servers as other uids: with
// callers authenticated it refuses (naming the settings), with callers off it runs as today and
// says once that servers are not isolated. "Cannot switch" is told to it, not got by being non-root.
import test from 'ava';
import { ConfigError, parseUidRange } from '../../config/config';
import { createLogger } from '../../platform/logger';
import { createWorkloadRuntime, type RuntimeConfig } from '../../activities/workloads/create-runtime';
import { localIsolation } from '../../activities/workloads/local-isolation';
import { LocalRuntime } from '../../activities/workloads/local-runtime';

const uidRange = parseUidRange('200000-265535');
const cannot = () => 'the service lacks CAP_SETUID (run it as root, or grant them)';
const can = () => null;

/** A logger whose lines the test reads. */
function recordingLogger() {
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = createLogger('test-local-isolation', 'info', { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, warnings: () => lines.filter((line) => line.level === 40).map((line) => line.msg) };
}

const config = (local: RuntimeConfig['local']): RuntimeConfig => ({
  runtime: 'local', readyTimeoutMs: 60_000, gatewayMaxSessions: 8, local, container: { network: 'none', owner: 'unused' },
  kube: { namespace: 'unused', gatewayImage: 'unused', reconcileIntervalMs: 60_000, reconcileGraceMs: 120_000, proxySelector: {}, proxyNamespaceSelector: {} },
});

test('callers authenticated, no uid switching: the local runtime refuses to start, naming the runtime setting and the single-tenant opt-in', async (t) => {
  const { logger } = recordingLogger();
  const error = await t.throwsAsync(
    createWorkloadRuntime(config({ uidRange, singleTenant: false }), logger, { callersEnabled: true, checkUidSwitching: cannot }),
    { instanceOf: ConfigError },
  );
  t.regex(error!.message, /CONNECTOR__STDIO_RUNTIME/);
  t.regex(error!.message, /CONNECTOR__STDIO_SINGLE_TENANT=true/);
  t.regex(error!.message, /lacks CAP_SETUID/, 'says why it cannot isolate');
  t.throws(() => localIsolation({ uidRange, singleTenant: false, callersEnabled: true, check: cannot, logger }), { instanceOf: ConfigError });
});

test('unless told that callers are off, they count as authenticated: a runtime built without saying refuses too', async (t) => {
  const { logger } = recordingLogger();
  await t.throwsAsync(createWorkloadRuntime(config({ uidRange, singleTenant: false }), logger, { checkUidSwitching: cannot }), { instanceOf: ConfigError });
});

test('callers authenticated with the single-tenant opt-in: it starts, servers share the service uid, and it says so once', async (t) => {
  const { logger, warnings } = recordingLogger();
  const runtime = await createWorkloadRuntime(config({ uidRange, singleTenant: true }), logger, { callersEnabled: true, checkUidSwitching: cannot });
  t.teardown(() => runtime.close());
  t.true(runtime instanceof LocalRuntime);
  t.deepEqual(warnings().filter((msg) => /not isolated/.test(msg)).length, 1);
});

test('callers off (the loopback default), no uid switching: it starts as today and warns once that servers are not isolated', async (t) => {
  const { logger, warnings } = recordingLogger();
  const runtime = await createWorkloadRuntime(config({ uidRange, singleTenant: false }), logger, { callersEnabled: false, checkUidSwitching: cannot });
  t.teardown(() => runtime.close());
  t.true(runtime instanceof LocalRuntime);
  t.deepEqual(warnings(), ["local stdio servers run as the service's own uid and are not isolated: each can read the others' tokens and the service's secrets"]);
  t.is(localIsolation({ uidRange, singleTenant: false, callersEnabled: false, check: cannot, logger }), null, 'servers run as the service uid');
});

test('where uids can be switched, the range is used and nothing is said', async (t) => {
  const { logger, warnings } = recordingLogger();
  t.is(localIsolation({ uidRange, singleTenant: false, callersEnabled: true, check: can, logger }), uidRange);
  t.is(localIsolation({ uidRange, singleTenant: true, callersEnabled: false, check: can, logger }), uidRange, 'isolated whenever possible');
  t.deepEqual(warnings(), []);
});
