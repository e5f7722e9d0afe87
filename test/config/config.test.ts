import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { CACHED_WORKFLOW_KB, cachedWorkflowsFor, loadConfig } from '../../config/config';
import { createLogger } from '../../platform/logger';
import { temporalConnectOptions } from '../../service/services';

test('defaults', (t) => {
  const c = loadConfig({});
  t.is(c.port, 8080);
  t.is(c.host, '127.0.0.1');
  t.is(c.baseUrl, 'http://localhost:8080');
  t.is(c.dataDir, '.data');
  t.is(c.temporal.namespace, 'default');
  t.is(c.presets.length, 3);
  t.false(c.blockPrivateNetworks);
  t.deepEqual(c.allowedPrivateNetworks, []);
  t.is(c.encryptionKey, undefined);
});

test('BASE_URL follows PORT unless given', (t) => {
  t.is(loadConfig({ PORT: '9000' }).baseUrl, 'http://localhost:9000');
  t.is(loadConfig({ PORT: '9000', BASE_URL: 'https://reg.example.com/' }).baseUrl, 'https://reg.example.com');
});

test('a bad value stops start-up naming the variable', (t) => {
  const cases: Record<string, string> = {
    PORT: 'eighty', BASE_URL: 'ftp://x', TEMPORAL_ADDRESS: 'nohostport', MONGODB_URI: 'postgres://x',
    CONNECTOR__ENCRYPTION_KEY: 'short', CONNECTOR__PRESETS: '[{"url":"mcp+stdio://x"}]', LOG_LEVEL: 'loud',
    CONNECTOR__BLOCK_PRIVATE_NETWORKS: 'maybe', CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '10.0.0.0/8,10.300.0.0/16',
  };
  for (const [name, value] of Object.entries(cases)) {
    const err = t.throws(() => loadConfig({ [name]: value }), undefined, name);
    t.true(err!.message.startsWith(name), `${name}: ${err!.message}`);
  }
});

test('CONNECTOR__BLOCK_PRIVATE_NETWORKS=true is read', (t) => {
  t.true(loadConfig({ CONNECTOR__BLOCK_PRIVATE_NETWORKS: 'true' }).blockPrivateNetworks);
});

const KEYS = JSON.stringify([{ subject: 'team-a', sha256: 'a'.repeat(64) }]);

test('private networks are blocked by default whenever callers are authenticated; an explicit value wins', (t) => {
  t.true(loadConfig({ CONNECTOR__API_KEYS: KEYS }).blockPrivateNetworks, 'API keys');
  t.true(loadConfig({ CONNECTOR__AUTH_ISSUER: 'https://idp.example.com' }).blockPrivateNetworks, 'an issuer');
  t.false(loadConfig({}).blockPrivateNetworks, 'the embedded default on loopback, callers not authenticated');
  t.false(loadConfig({ CONNECTOR__API_KEYS: KEYS, CONNECTOR__AUTH_DISABLED: 'true' }).blockPrivateNetworks, 'authentication disabled on purpose');
  t.false(loadConfig({ HOST: '0.0.0.0', CONNECTOR__AUTH_DISABLED: 'true' }).blockPrivateNetworks);
  t.false(loadConfig({ CONNECTOR__API_KEYS: KEYS, CONNECTOR__BLOCK_PRIVATE_NETWORKS: 'false' }).blockPrivateNetworks, 'explicit false');
  t.true(loadConfig({ CONNECTOR__BLOCK_PRIVATE_NETWORKS: 'true' }).blockPrivateNetworks, 'explicit true without authentication');
});

test('CONNECTOR__ALLOWED_PRIVATE_NETWORKS: comma-separated IPv4 and IPv6 CIDRs, normalised; a bad one names the variable', (t) => {
  const c = loadConfig({ CONNECTOR__API_KEYS: KEYS, CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '10.20.0.0/16, 127.0.0.0/8,fd00:1:0:0::/64,::1/128, 192.168.7.9' });
  t.deepEqual(c.allowedPrivateNetworks, ['10.20.0.0/16', '127.0.0.0/8', 'fd00:1::/64', '::1/128', '192.168.7.9/32']);
  t.true(c.blockPrivateNetworks, 'listing networks does not turn the block off');
  for (const bad of ['10.0.0.0/33', 'not-a-network', '10.0.0.0/8;192.168.0.0/16', 'fd00::/200', 'https://10.0.0.0/8']) {
    const err = t.throws(() => loadConfig({ CONNECTOR__ALLOWED_PRIVATE_NETWORKS: bad }), undefined, bad);
    t.regex(err!.message, /^CONNECTOR__ALLOWED_PRIVATE_NETWORKS: .* is not a CIDR/, bad);
  }
});

test('CONNECTOR__ROUTE_LOAD_TIMEOUT_MS is read, bounded and defaults to 2 s', (t) => {
  t.is(loadConfig({}).routeLoadTimeoutMs, 2000);
  t.is(loadConfig({ CONNECTOR__ROUTE_LOAD_TIMEOUT_MS: '30000' }).routeLoadTimeoutMs, 30000);
  t.throws(() => loadConfig({ CONNECTOR__ROUTE_LOAD_TIMEOUT_MS: '5' }), { message: /CONNECTOR__ROUTE_LOAD_TIMEOUT_MS/ });
});

test('bounded state: session cap, events retention, HTTP timeouts and connection cap, with their defaults', (t) => {
  const c = loadConfig({});
  t.is(c.stdio.gatewayMaxSessions, 256);
  t.is(c.eventsRetentionDays, 90);
  t.deepEqual(c.http, { headersTimeoutMs: 20_000, requestTimeoutMs: 60_000, keepAliveTimeoutMs: 5_000, maxConnections: 10_000 });
  const set = loadConfig({
    CONNECTOR__GATEWAY_MAX_SESSIONS: '8', CONNECTOR__EVENTS_RETENTION_DAYS: '7', CONNECTOR__MAX_CONNECTIONS: '50',
    CONNECTOR__HEADERS_TIMEOUT_MS: '500', CONNECTOR__REQUEST_TIMEOUT_MS: '1000', CONNECTOR__KEEP_ALIVE_TIMEOUT_MS: '2000',
  });
  t.is(set.stdio.gatewayMaxSessions, 8);
  t.is(set.eventsRetentionDays, 7);
  t.deepEqual(set.http, { headersTimeoutMs: 500, requestTimeoutMs: 1000, keepAliveTimeoutMs: 2000, maxConnections: 50 });
  for (const name of ['CONNECTOR__GATEWAY_MAX_SESSIONS', 'CONNECTOR__EVENTS_RETENTION_DAYS', 'CONNECTOR__MAX_CONNECTIONS', 'CONNECTOR__HEADERS_TIMEOUT_MS']) {
    t.throws(() => loadConfig({ [name]: '0' }), { message: new RegExp(`^${name}`) });
  }
  // Node refuses a headers timeout longer than the request timeout.
  t.throws(() => loadConfig({ CONNECTOR__HEADERS_TIMEOUT_MS: '5000', CONNECTOR__REQUEST_TIMEOUT_MS: '1000' }), {
    message: /^CONNECTOR__HEADERS_TIMEOUT_MS: must not exceed CONNECTOR__REQUEST_TIMEOUT_MS/,
  });
});

test('Temporal access: TLS with a client certificate and CA from files, an API key only over TLS', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-tls-'));
  for (const f of ['tls.crt', 'tls.key', 'ca.crt']) fs.writeFileSync(path.join(dir, f), `pem of ${f}`);
  t.deepEqual(loadConfig({}).temporal.access, { tls: null, apiKey: null });
  const mtls = loadConfig({
    TEMPORAL_TLS_CLIENT_CERT_PATH: path.join(dir, 'tls.crt'), TEMPORAL_TLS_CLIENT_KEY_PATH: path.join(dir, 'tls.key'),
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: path.join(dir, 'ca.crt'), TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
  }).temporal.access;
  t.is(mtls.tls?.clientCert?.toString(), 'pem of tls.crt');
  t.is(mtls.tls?.clientKey?.toString(), 'pem of tls.key');
  t.is(mtls.tls?.serverCa?.toString(), 'pem of ca.crt');
  t.is(mtls.tls?.serverName, 'temporal.internal');
  t.deepEqual(loadConfig({ TEMPORAL_API_KEY: 'k' }).temporal.access, { tls: {
    clientCert: undefined, clientKey: undefined, serverCa: undefined, serverName: undefined,
  }, apiKey: 'k' }, 'an API key turns TLS on');
  t.throws(() => loadConfig({ TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' }), { message: /^TEMPORAL_API_KEY: an API key is only sent over TLS/ });
  t.throws(() => loadConfig({ TEMPORAL_TLS_CLIENT_CERT_PATH: path.join(dir, 'tls.crt') }), { message: /^TEMPORAL_TLS_CLIENT_CERT_PATH: a client certificate needs its key/ });
  t.throws(() => loadConfig({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: path.join(dir, 'missing.crt') }), { message: /^TEMPORAL_TLS_SERVER_CA_CERT_PATH: ENOENT/ });
  const options = temporalConnectOptions('t:7233', mtls);
  t.deepEqual(options.tls, {
    serverNameOverride: 'temporal.internal', serverRootCACertificate: mtls.tls?.serverCa,
    clientCertPair: { crt: mtls.tls?.clientCert, key: mtls.tls?.clientKey },
  });
  t.false('apiKey' in options);
  t.is(temporalConnectOptions('t:7233').tls, undefined, 'the embedded dev server: plain');
});

test('Kubernetes runtime: a dedicated workloads namespace and the proxy selectors by default', (t) => {
  const { kube } = loadConfig({}).stdio;
  t.is(kube.namespace, 'connector-workloads');
  t.deepEqual(kube.proxySelector, { 'app.kubernetes.io/name': 'connector-registry', 'app.kubernetes.io/component': 'proxy' });
  t.deepEqual(kube.proxyNamespaceSelector, { 'kubernetes.io/metadata.name': 'connector-registry' });
});

test('CONNECTOR__KUBE_PROXY_SELECTOR and CONNECTOR__KUBE_PROXY_NAMESPACE_SELECTOR are key=value lists of labels', (t) => {
  const { kube } = loadConfig({
    CONNECTOR__KUBE_PROXY_SELECTOR: 'app=proxy, example.com/tier=edge',
    CONNECTOR__KUBE_PROXY_NAMESPACE_SELECTOR: 'kubernetes.io/metadata.name=mcp',
  }).stdio;
  t.deepEqual(kube.proxySelector, { app: 'proxy', 'example.com/tier': 'edge' });
  t.deepEqual(kube.proxyNamespaceSelector, { 'kubernetes.io/metadata.name': 'mcp' });
  for (const value of ['app', '=x', 'a b=c', 'app=no spaces', 'Bad_Prefix/x=y', ',']) {
    for (const name of ['CONNECTOR__KUBE_PROXY_SELECTOR', 'CONNECTOR__KUBE_PROXY_NAMESPACE_SELECTOR']) {
      t.throws(() => loadConfig({ [name]: value }), { message: new RegExp(`^${name}: `) }, `${name}=${value}`);
    }
  }
  // An empty value matches pods whose label is present and empty, as in Kubernetes.
  t.deepEqual(loadConfig({ CONNECTOR__KUBE_PROXY_SELECTOR: 'role=' }).stdio.kube.proxySelector, { role: '' });
});

test('CONNECTOR__KUBE_RECONCILE_GRACE_MS: by default a whole start and a minute more', (t) => {
  t.is(loadConfig({}).stdio.kube.reconcileGraceMs, 120_000);
  t.is(loadConfig({ CONNECTOR__STDIO_READY_TIMEOUT_MS: '10000' }).stdio.kube.reconcileGraceMs, 70_000);
  t.is(loadConfig({ CONNECTOR__KUBE_RECONCILE_GRACE_MS: '0' }).stdio.kube.reconcileGraceMs, 0);
  t.throws(() => loadConfig({ CONNECTOR__KUBE_RECONCILE_GRACE_MS: '-1' }), { message: /^CONNECTOR__KUBE_RECONCILE_GRACE_MS/ });
});

test('CONNECTOR__TEMPORAL_UI: the embedded Temporal Web UI is off unless asked for', (t) => {
  t.false(loadConfig({}).temporal.webUi);
  t.true(loadConfig({ CONNECTOR__TEMPORAL_UI: 'true' }).temporal.webUi);
  t.false(loadConfig({ CONNECTOR__TEMPORAL_UI: 'false' }).temporal.webUi);
  t.throws(() => loadConfig({ CONNECTOR__TEMPORAL_UI: 'sometimes' }), { message: /CONNECTOR__TEMPORAL_UI/ });
});

test('the workflow cache is sized from the worker memory budget, or given', (t) => {
  const byDefault = loadConfig({}).temporal.maxCachedWorkflows;
  t.is(byDefault, cachedWorkflowsFor(64));
  t.is(loadConfig({ CONNECTOR__WORKER_MEMORY_BUDGET_MB: '256' }).temporal.maxCachedWorkflows, cachedWorkflowsFor(256));
  t.true(cachedWorkflowsFor(256) > byDefault);
  t.is(loadConfig({ CONNECTOR__WORKER_MEMORY_BUDGET_MB: '16' }).temporal.maxCachedWorkflows, Math.max(10, Math.floor((16 * 1024) / CACHED_WORKFLOW_KB)));
  t.is(loadConfig({ CONNECTOR__WORKER_MEMORY_BUDGET_MB: '256', CONNECTOR__MAX_CACHED_WORKFLOWS: '50' }).temporal.maxCachedWorkflows, 50);
  t.throws(() => loadConfig({ CONNECTOR__MAX_CACHED_WORKFLOWS: '0' }), { message: /CONNECTOR__MAX_CACHED_WORKFLOWS/ });
  t.throws(() => loadConfig({ CONNECTOR__WORKER_MEMORY_BUDGET_MB: 'lots' }), { message: /CONNECTOR__WORKER_MEMORY_BUDGET_MB/ });
});

test('the connector workflows stay on one task queue unless shards are asked for, and no more than 16', (t) => {
  t.is(loadConfig({}).temporal.shards, 1);
  t.is(loadConfig({ CONNECTOR__WORKFLOW_SHARDS: '4' }).temporal.shards, 4);
  for (const bad of ['0', '17', '2.5', 'many']) t.throws(() => loadConfig({ CONNECTOR__WORKFLOW_SHARDS: bad }), { message: /CONNECTOR__WORKFLOW_SHARDS/ }, bad);
});

test('traces are off without an OTLP endpoint, and read from the OpenTelemetry variables with one', (t) => {
  t.is(loadConfig({}).tracing, null);
  t.is(loadConfig({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).tracing, null, 'no endpoint, no SDK');
  t.deepEqual(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing, { url: 'http://collector:4318/v1/traces', protocol: 'http/protobuf' });
  t.deepEqual(loadConfig({
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector.example.com/otlp/traces',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'registry-eu',
  }).tracing, { url: 'https://collector.example.com/otlp/traces', protocol: 'http/json', serviceName: 'registry-eu' });
  t.is(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracing, null);
  t.is(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }).tracing, null);
});

test('an OTLP setting the service cannot honour stops start-up naming the variable', (t) => {
  const refused = (env: Record<string, string>) => t.throws(() => loadConfig(env))!.message;
  t.regex(refused({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }), /^OTEL_EXPORTER_OTLP_ENDPOINT: must be an http\(s\) URL/);
  t.regex(refused({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://collector:4317' }), /^OTEL_EXPORTER_OTLP_TRACES_ENDPOINT:/);
  t.regex(refused({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }), /^OTEL_EXPORTER_OTLP_PROTOCOL: grpc is not supported/);
  t.regex(refused({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'zipkin' }), /^OTEL_TRACES_EXPORTER:/);
});

test('CONNECTOR__STDIO_UID_RANGE: 200000-265535 by default, never root, a system account or the "no id" value; the single-tenant opt-in is off', (t) => {
  t.deepEqual(loadConfig({}).stdio.local, { uidRange: { first: 200_000, last: 265_535 }, singleTenant: false });
  t.deepEqual(loadConfig({ CONNECTOR__STDIO_UID_RANGE: ' 100000 - 100009 ' }).stdio.local.uidRange, { first: 100_000, last: 100_009 });
  t.deepEqual(loadConfig({ CONNECTOR__STDIO_UID_RANGE: '5000-5000' }).stdio.local.uidRange, { first: 5000, last: 5000 }, 'one uid: one server at a time');
  for (const value of ['0-65535', '999-2000', '300000-200000', '200000', '200000-4294967295', 'a-b', '-5-10', '200000-265535,300000-300001']) {
    t.throws(() => loadConfig({ CONNECTOR__STDIO_UID_RANGE: value }), { message: /^CONNECTOR__STDIO_UID_RANGE: / }, value);
  }
  t.true(loadConfig({ CONNECTOR__STDIO_SINGLE_TENANT: 'true' }).stdio.local.singleTenant);
  t.throws(() => loadConfig({ CONNECTOR__STDIO_SINGLE_TENANT: 'sure' }), { message: /^CONNECTOR__STDIO_SINGLE_TENANT/ });
});

test('CONNECTOR__RATE_LIMIT_PER_OWNER: on by default with callers authenticated, off without; parsed and checked', (t) => {
  t.deepEqual(loadConfig({ CONNECTOR__API_KEYS: KEYS }).callers.rateLimitPerOwner, { perSecond: 50, burst: 100 }, 'the default');
  t.is(loadConfig({}).callers.rateLimitPerOwner, null, 'callers not authenticated: no owner to limit');
  t.deepEqual(loadConfig({ CONNECTOR__API_KEYS: KEYS, CONNECTOR__RATE_LIMIT_PER_OWNER: '20/s,burst=40' }).callers.rateLimitPerOwner, { perSecond: 20, burst: 40 });
  t.deepEqual(loadConfig({ CONNECTOR__API_KEYS: KEYS, CONNECTOR__RATE_LIMIT_PER_OWNER: '5/s' }).callers.rateLimitPerOwner, { perSecond: 5, burst: 10 }, 'burst: twice the rate');
  t.is(loadConfig({ CONNECTOR__API_KEYS: KEYS, CONNECTOR__RATE_LIMIT_PER_OWNER: 'off' }).callers.rateLimitPerOwner, null);
  for (const bad of ['20', '20/m', '0/s', '20/s,burst=0', 'fast', '20/s,burst=x']) {
    const err = t.throws(() => loadConfig({ CONNECTOR__API_KEYS: KEYS, CONNECTOR__RATE_LIMIT_PER_OWNER: bad }), undefined, bad);
    t.regex(err!.message, /^CONNECTOR__RATE_LIMIT_PER_OWNER: /, bad);
  }
  t.throws(() => loadConfig({ CONNECTOR__RATE_LIMIT_PER_OWNER: 'fast' }), undefined, 'checked even while callers are off');
});

test('CONNECTOR__AUTH_SCOPES: openid by default, space-separated scope tokens, a bad one names the variable', (t) => {
  const issuer = 'https://idp.example.com';
  t.deepEqual(loadConfig({ CONNECTOR__AUTH_ISSUER: issuer }).callers.jwt?.scopes, ['openid']);
  t.deepEqual(loadConfig({ CONNECTOR__AUTH_ISSUER: issuer, CONNECTOR__AUTH_SCOPES: 'openid mcp:use' }).callers.jwt?.scopes, ['openid', 'mcp:use']);
  for (const bad of ['openid  mcp', 'a"b', 'a\\b']) {
    const err = t.throws(() => loadConfig({ CONNECTOR__AUTH_ISSUER: issuer, CONNECTOR__AUTH_SCOPES: bad }), undefined, bad);
    t.true(err!.message.startsWith('CONNECTOR__AUTH_SCOPES'), err!.message);
  }
});
