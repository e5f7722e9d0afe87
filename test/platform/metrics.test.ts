// The series' definitions: connectors by state are asked for at each scrape and list every
// state, the status label never invents a code, CONNECTOR__METRICS_PORT is read and checked, and the
// proxy's method label takes only MCP's method names from the Mcp-Method header.
import test from 'ava';
import { loadConfig, ConfigError } from '../../config/config';
import { STATES } from '../../contract/connector-states';
import { createMetrics, registerConnectorStates, statusLabel } from '../../platform/metrics';
import { rpcMethodLabel } from '../../proxy/mcp-metrics';
import { valueOf } from '../helpers/prometheus-text';

test('connectors by state are counted at scrape time, every state listed, 0 when empty', async (t) => {
  const metrics = createMetrics();
  let counts: Record<string, number> = { connected: 2 };
  let asked = 0;
  registerConnectorStates(metrics, async () => {
    asked += 1;
    return counts;
  });
  let text = await metrics.registry.metrics();
  t.is(asked, 1);
  t.is(valueOf(text, 'connectors', { state: 'connected' }), 2);
  for (const state of STATES) t.not(valueOf(text, 'connectors', { state }), undefined, state);
  counts = { disconnected: 1 };
  text = await metrics.registry.metrics();
  t.is(valueOf(text, 'connectors', { state: 'connected' }), 0, 'a drained state reads 0, not its last value');
  t.is(valueOf(text, 'connectors', { state: 'disconnected' }), 1);
});

test('the status label is the code sent, or `aborted` when none was', (t) => {
  t.is(statusLabel({ headersSent: true, statusCode: 404 }), '404');
  t.is(statusLabel({ headersSent: false, statusCode: 200 }), 'aborted');
});

test('CONNECTOR__METRICS_PORT: absent by default, read when set, refused by name when not a port', (t) => {
  t.is(loadConfig({}).metricsPort, undefined);
  t.is(loadConfig({ CONNECTOR__METRICS_PORT: '9464' }).metricsPort, 9464);
  const err = t.throws(() => loadConfig({ CONNECTOR__METRICS_PORT: '70000' }), { instanceOf: ConfigError });
  t.regex(err!.message, /^CONNECTOR__METRICS_PORT:/);
});

test('the MCP method label: a method MCP defines, else `other`; `unknown` when no body names one', (t) => {
  t.is(rpcMethodLabel('tools/call', 'message'), 'tools/call');
  t.is(rpcMethodLabel('/api/v1/connectors/abc', 'message'), 'other');
  t.is(rpcMethodLabel(null, 'batch'), 'other');
  t.is(rpcMethodLabel(null, 'unreadable'), 'other');
  t.is(rpcMethodLabel(null, 'none'), 'unknown');
});
