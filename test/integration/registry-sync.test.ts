// The embedded stack syncing presets from a local MCP registry (loopback, real server.json
// documents): the schedule's first run fills the presets list; an admin approves a stdio preset's
// version (anyone else 403); a connector made from a registry preset is disconnected with the
// reason once the registry deletes its server, and the preset disappears; a deprecated one is marked.
import test from 'ava';
import { sha256Hex } from '../../callers/api-keys';
import { startTokenMcpServer, type TokenMcpServer } from '../fixtures/token-mcp-server';
import { HOSTILE } from '../fixtures/registry/hostile';
import { realServers, startRegistryServer, type RegistryServer } from '../fixtures/registry/registry-server';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';

const real = realServers();
const KEYS = { admin: 'registry-admin-key-0123456789', user: 'registry-user-key-0123456789' };
const as = (key: string) => ({ authorization: `Bearer ${key}` });
const LOOPBACK_REMOTE = 'com.example/loopback-remote';
const STDIO = 'io.github.username/kubernetes-manager-mcp';

let stack: TestStack;
let registry: RegistryServer;
let upstream: TokenMcpServer;
let runs = 0;

test.before(async () => {
  upstream = await startTokenMcpServer({ token: 'registry-token' });
  registry = await startRegistryServer({ pageSize: 2 });
  // A real document, its remote moved to the local MCP server.
  registry.publish({ ...real['acme-analytics']!, name: LOOPBACK_REMOTE, remotes: [{ type: 'streamable-http', url: upstream.url }] });
  for (const doc of [real['kubernetes-manager-mcp']!, real['hybrid-mcp']!, real['mcp-fs']!, HOSTILE.metadataRemote, HOSTILE.wrongTypes]) registry.publish(doc);
  const names = [LOOPBACK_REMOTE, STDIO, 'io.modelcontextprotocol.anonymous/hybrid-mcp', 'io.modelcontextprotocol.anonymous/mcp-fs', 'io.hostile/metadata', 'io.hostile/wrong-types'];
  stack = await startTestStack({
    CONNECTOR__API_KEYS: JSON.stringify([{ subject: 'admin', sha256: sha256Hex(KEYS.admin), admin: true }, { subject: 'user', sha256: sha256Hex(KEYS.user) }]),
    CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8',
    CONNECTOR__REGISTRY_URL: registry.url,
    CONNECTOR__REGISTRY_SERVERS: JSON.stringify(names.map((name) => ({ name, ...(name === LOOPBACK_REMOTE ? { overlay: { metadata: { name: 'Loopback' } } } : {}) }))),
  });
});

test.after.always(async () => {
  await stack?.stop();
  await registry?.close();
  await upstream?.close();
});

/** One sync, run to its end (the schedule's own run is what fills the list at start). */
async function syncNow() {
  return stack.temporal.workflow.execute('registrySyncWorkflow', { taskQueue: stack.config.temporal.taskQueue, workflowId: `registry-sync-test-${++runs}` });
}

async function presets(): Promise<any[]> {
  return (await stack.api('GET', '/api/v1/connectors/presets', undefined, as(KEYS.user))).body.items;
}

const byName = (items: any[], name: string) => items.find((p) => p.name === name);

test.serial('the schedule\'s first sync fills the presets list: source, version, runnable and why not', async (t) => {
  // The sync stores its entries one by one: a list read meanwhile holds some of them. Every valid
  // entry present means the sync's store has finished (the invalid one is never stored).
  const stored = [LOOPBACK_REMOTE, STDIO, 'io.modelcontextprotocol.anonymous/hybrid-mcp', 'io.modelcontextprotocol.anonymous/mcp-fs', 'io.hostile/metadata'];
  const items = await eventually(async () => {
    const list = await presets();
    return stored.every((name) => byName(list, name)) ? list : undefined;
  }, 150_000, 'registry presets'); // generous: on a busy machine the schedule's first run may take a while
  t.true(items.some((p) => p.source === 'env' && p.version === null), 'the env presets stay');
  t.like(byName(items, LOOPBACK_REMOTE), { source: 'registry', version: '2.0.0', url: upstream.url, runnable: true, metadata: { name: 'Loopback' } });
  t.like(byName(items, STDIO), { source: 'registry', version: '1.0.0', approved: false, stdio: { image: 'docker.io/yourusername/kubernetes-manager-mcp:1.0.0' } });
  t.like(byName(items, 'io.modelcontextprotocol.anonymous/hybrid-mcp'), { runnable: false });
  t.like(byName(items, 'io.hostile/metadata'), { runnable: false });
  t.regex(byName(items, 'io.hostile/metadata').reason, /refused/);
  t.is(byName(items, 'io.hostile/wrong-types'), undefined, 'an invalid entry is skipped');
  t.true(registry.requests.some((r) => r.startsWith('/v0.1/servers/com.example%2Floopback-remote/versions/latest')));
});

test.serial('a registry stdio preset runs only once an admin approved its version; others get 403', async (t) => {
  const created = await stack.api('POST', '/api/v1/connectors', { url: `mcp+stdio://${STDIO}` }, as(KEYS.user));
  t.is(created.status, 201);
  const refused = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, {}, as(KEYS.user));
  t.is(refused.status, 422);
  t.regex(refused.body.detail, /runs only after an admin approved this version/);
  const path = `/api/v1/connectors/presets/${encodeURIComponent(STDIO)}/approve`;
  t.is((await stack.api('POST', path, {}, as(KEYS.user))).status, 403);
  t.is((await stack.api('POST', path, { version: '0.9.0' }, as(KEYS.admin))).status, 409);
  t.is((await stack.api('POST', `/api/v1/connectors/presets/${encodeURIComponent(LOOPBACK_REMOTE)}/approve`, {}, as(KEYS.admin))).status, 409);
  t.is((await stack.api('POST', '/api/v1/connectors/presets/io.example%2Fnone/approve', {}, as(KEYS.admin))).status, 404);
  const approved = await stack.api('POST', path, { version: '1.0.0' }, as(KEYS.admin));
  t.is(approved.status, 200);
  t.like(approved.body, { name: STDIO, version: '1.0.0', approved: true });
  t.like(byName(await presets(), STDIO), { approved: true });
  // Approved, it reaches the runtime, which says why it cannot run it here (an image on local processes).
  const next = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, {}, as(KEYS.user));
  t.is(next.status, 422);
  t.notRegex(next.body.detail, /approved/);
});

test.serial('deprecated is marked; deleted: the preset disappears and its connectors are disconnected with the reason', async (t) => {
  const created = await stack.api('POST', '/api/v1/connectors', { url: upstream.url }, as(KEYS.user));
  t.is(created.status, 201);
  t.deepEqual(created.body.preset, { url: upstream.url });
  t.is(created.body.metadata.name, 'Loopback');
  const connected = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, { access_token: 'registry-token' }, as(KEYS.user));
  t.is(connected.status, 200);
  t.is(connected.body.state, 'connected');

  registry.setStatus('io.modelcontextprotocol.anonymous/mcp-fs', '2.0.0', 'deprecated');
  registry.setStatus(LOOPBACK_REMOTE, '2.0.0', 'deleted');
  const result = await syncNow();
  t.deepEqual(result.withdrawn, [created.body.id]);
  t.true(registry.requests.some((r) => r.startsWith('/v0.1/servers?') && r.includes('updated_since=')), 'the second sync is incremental');

  const items = await presets();
  t.is(byName(items, LOOPBACK_REMOTE), undefined);
  t.like(byName(items, 'io.modelcontextprotocol.anonymous/mcp-fs'), { deprecated: true });
  const record = await eventually(async () => {
    const got = await stack.api('GET', `/api/v1/connectors/${created.body.id}`, undefined, as(KEYS.user));
    return got.body.state === 'disconnected' ? got.body : undefined;
  }, 30_000, 'the withdrawn connector disconnected');
  t.regex(record.disconnect_reason, /registry deleted com\.example\/loopback-remote 2\.0\.0/);
  const events = await stack.api('GET', `/api/v1/connectors/${created.body.id}/events`, undefined, as(KEYS.user));
  t.true(events.body.items.some((e: any) => e.actor === 'registry'), 'on record, in the registry\'s name');

  const again = await syncNow();
  t.deepEqual(again.withdrawn, [], 'a second sync has nothing left to withdraw');
});
