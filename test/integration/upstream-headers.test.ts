// Headers and URL variables (issue 41 item 5) on the real stack: a registry entry whose remote asks
// for a secret X-API-Key header and is reached at /{tenant}/mcp becomes a connector; the connect
// supplies both, refused naming the field when wrong; a tools/call works through the proxy with
// the connector's key, never the caller's; and the key is in no answer, log line, MongoDB
// document or Temporal history in plaintext.
import test from 'ava';
import { MongoClient } from 'mongodb';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectorWorkflowId } from '../../workflows/messages';
import { startApiKeyMcpServer, type ApiKeyMcpServer } from '../fixtures/api-key-mcp-server';
import { realServers, startRegistryServer, type RegistryServer } from '../fixtures/registry/registry-server';
import { eventually, filesContaining, startTestStack, type ApiAnswer, type TestStack } from '../helpers/test-stack';
import { historyOfAllRuns } from '../helpers/history-values';

const SECRET = `api-key-${crypto.randomUUID()}`;
const CALLER_KEY = `caller-key-${crypto.randomUUID()}`;
const NAME = 'com.example/tenant-remote';
const real = realServers();

let stack: TestStack;
let registry: RegistryServer;
let upstream: ApiKeyMcpServer;
const answers: ApiAnswer[] = [];

test.before(async () => {
  upstream = await startApiKeyMcpServer({ apiKey: SECRET, tenant: 'acme' });
  registry = await startRegistryServer();
  registry.publish({
    ...real['acme-analytics']!, name: NAME, packages: undefined,
    remotes: [{
      type: 'streamable-http', url: upstream.template,
      variables: { tenant: { description: 'Your tenant', isRequired: true } },
      headers: [{ name: 'X-API-Key', description: 'API key', isRequired: true, isSecret: true }],
    }],
  });
  stack = await startTestStack({
    CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8',
    CONNECTOR__REGISTRY_URL: registry.url,
    CONNECTOR__REGISTRY_SERVERS: JSON.stringify([{ name: NAME }]),
  });
  await stack.temporal.workflow.execute('registrySyncWorkflow', { taskQueue: stack.config.temporal.taskQueue, workflowId: 'registry-sync-headers-test' });
});

test.after.always(async () => {
  await stack?.stop();
  await registry?.close();
  await upstream?.close();
});

async function api(method: string, path: string, body?: unknown): Promise<ApiAnswer> {
  const answer = await stack.api(method, path, body);
  answers.push(answer);
  return answer;
}

async function preset(): Promise<any> {
  return eventually(async () => (await api('GET', '/api/v1/connectors/presets')).body.items.find((p: any) => p.name === NAME), 60_000, 'the registry preset');
}

async function created(): Promise<any> {
  const answer = await api('POST', '/api/v1/connectors', { url: (await preset()).url });
  if (answer.status !== 201) throw new Error(`create: ${answer.status} ${answer.text}`);
  return answer.body;
}

test.serial('the registry remote is runnable, and lists the variable and the header a connect supplies', async (t) => {
  const p = await preset();
  t.like(p, { source: 'registry', runnable: true, url: upstream.template });
  t.deepEqual(p.fields, [
    { name: 'tenant', in: 'url', secret: false, required: true, description: 'Your tenant' },
    { name: 'X-API-Key', in: 'header', secret: true, required: true, description: 'API key' },
  ]);
});

const refusals: [string, Record<string, unknown>, string[]][] = [
  ['nothing given', {}, ['headers.X-API-Key', 'variables.tenant']],
  ['an unknown header and variable', { headers: { 'X-API-Key': 'k', 'X-Other': 'v' }, variables: { tenant: 'acme', region: 'eu' } }, ['headers.X-Other', 'variables.region']],
  ['a reserved header name', { headers: { Host: 'evil.example', 'X-API-Key': 'k' }, variables: { tenant: 'acme' } }, ['headers.Host']],
  ['a header value with a line break', { headers: { 'X-API-Key': 'k\r\nX-Injected: 1' }, variables: { tenant: 'acme' } }, ['headers.X-API-Key']],
  ['a variable that would change the path', { headers: { 'X-API-Key': 'k' }, variables: { tenant: 'acme/../other' } }, ['variables.tenant']],
  ['a variable that would change the host', { headers: { 'X-API-Key': 'k' }, variables: { tenant: 'user@evil.example:80' } }, ['variables.tenant']],
];

for (const [what, body, fields] of refusals) {
  test.serial(`a connect is refused with 422 naming the field: ${what}`, async (t) => {
    const { id } = await created();
    const answer = await api('POST', `/api/v1/connectors/${id}/connect`, body);
    t.is(answer.status, 422, answer.text);
    t.deepEqual(answer.body.errors.map((e: { path: string }) => e.path).sort(), fields);
    t.is((await api('GET', `/api/v1/connectors/${id}`)).body.state, 'created', 'nothing was sent');
  });
}

test.serial('a connector with the key and the tenant connects, and a tools/call works through the proxy with its key, never the caller\'s', async (t) => {
  const { id, mcp_url: mcpUrl } = await created();
  const connected = await api('POST', `/api/v1/connectors/${id}/connect`, { headers: { 'X-API-Key': SECRET }, variables: { tenant: 'acme' } });
  t.is(connected.status, 200, connected.text);
  t.like(connected.body, { state: 'connected', headers: ['X-API-Key'], variables: { tenant: 'acme' } });
  t.is(connected.body.url, upstream.template.replace('{tenant}', '%7Btenant%7D'), 'the record keeps the template');
  const seenBefore = upstream.seen.length;
  const client = new Client({ name: 'headers-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { 'X-API-Key': CALLER_KEY } } }));
  const result = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
  await client.close();
  t.deepEqual(result.content, [{ type: 'text', text: 'acme: hello' }]);
  const proxied = upstream.seen.slice(seenBefore);
  t.true(proxied.length > 0);
  for (const seen of proxied) t.deepEqual(seen, { path: '/acme/mcp', apiKey: SECRET }, 'the connector\'s key on every request, at the bound URL');
  t.false(upstream.seen.some((s) => s.apiKey === CALLER_KEY), 'the caller\'s own X-API-Key is never forwarded');
  const events = await api('GET', `/api/v1/connectors/${id}/events`);
  t.true(events.body.items.some((e: { reason: string }) => e.reason === 'connect requested (headers X-API-Key; URL variables tenant=acme)'), 'the audit names the header and the variable');
});

test.serial('the key is in no answer, log line, MongoDB document or Temporal history in plaintext', async (t) => {
  t.true(answers.length > 10);
  for (const answer of answers) t.false(answer.text.includes(SECRET), 'an API answer');
  t.deepEqual(filesContaining(stack.dataDir, SECRET), [], 'the data directory: logs, FerretDB and Temporal files');
  const mongo = new MongoClient(stack.mongoUri);
  t.teardown(() => mongo.close());
  const db = mongo.db(stack.config.mongo.database);
  let documents = 0;
  for (const { name } of await db.listCollections().toArray()) {
    const docs = await db.collection(name).find({}).toArray();
    documents += docs.length;
    t.false(JSON.stringify(docs).includes(SECRET), `MongoDB collection ${name}`);
  }
  t.true(documents > 0);
  const ids = (await api('GET', '/api/v1/connectors?limit=100')).body.items.map((c: { id: string }) => c.id);
  t.true(ids.length > 1);
  let sealedSeen = false;
  for (const id of ids) {
    const history = await historyOfAllRuns(stack.temporal, connectorWorkflowId(id));
    const text = JSON.stringify(history, payloadsAsText);
    t.false(text.includes(SECRET), `the history of connector ${id}`);
    sealedSeen ||= text.includes('\\"name\\":\\"X-API-Key\\",\\"value\\":\\"'); // JSON payload text, escaped once more
  }
  t.true(sealedSeen, 'the histories were read: the connect\'s header is there, by name, its value sealed');
});

/** Payload data as text (fetchHistory answers it base64-encoded), so that a secret inside one is found. */
function payloadsAsText(key: string, value: unknown): unknown {
  if (key === 'data' && typeof value === 'string') return Buffer.from(value, 'base64').toString('latin1');
  if (value instanceof Uint8Array) return Buffer.from(value).toString('latin1');
  return value;
}
