// The REST API against the real embedded stack (Temporal dev server + FerretDB): every
// endpoint of this issue with its status codes, the lifecycle and the audit trail.
import test from 'ava';
import { MongoClient } from 'mongodb';
import { undeclaredAnswers } from '../helpers/declared-answers';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';
import { startTokenMcpServer, type TokenMcpServer } from '../fixtures/token-mcp-server';

let stack: TestStack;
let upstream: TokenMcpServer;

test.before(async () => {
  upstream = await startTokenMcpServer({ token: 'good-token-123' });
  stack = await startTestStack({
    // The limit every connect of this file must beat, the hanging server's included: long enough
    // that a loopback MCP server answers within it however busy the machine is.
    CONNECTOR__CONNECT_TIMEOUT_MS: '10000',
    CONNECTOR__EVENTS_RETENTION_DAYS: '7',
    CONNECTOR__PRESETS: JSON.stringify([
      { url: 'https://preset.example/mcp', client_id: 'preset-client', client_secret: 'preset-secret', metadata: { name: 'Preset', description: 'A preset' } },
      { url: 'mcp+stdio://everything', metadata: { name: 'Everything', description: 'stdio' }, stdio: { image: 'everything:1', env: { SECRET_ENV: 'env-value-xyz' } } },
    ]),
  });
});

// Every answer of this file, error cases included, is one its operation declares (contract/operations.ts).
test.after('no handler answered a status or problem type its operation does not declare', (t) => {
  t.deepEqual(undeclaredAnswers(stack.logFile), []);
});

test.after.always(async () => {
  await stack?.stop();
  await upstream?.close();
});

const create = (body: unknown) => stack.api('POST', '/api/v1/connectors', body);

test('create: 201 with the record, Location header and normalised URL', async (t) => {
  const res = await create({ url: upstream.url.replace('http://', 'HTTP://'), metadata: { name: 'Mine' } });
  t.is(res.status, 201);
  t.is(res.headers.get('location'), `/api/v1/connectors/${res.body.id}`);
  t.like(res.body, { url: upstream.url, state: 'created', metadata: { name: 'Mine' }, auth_request: null, disconnect_reason: null, preset: null, created_by: null, created_by_name: null });
  t.regex(res.body.id, /^[0-9a-f-]{36}$/);
  t.is(res.body.mcp_url, `${stack.baseUrl}/api/v1/connectors/${res.body.id}/mcp`);
  t.false('client_secret' in res.body);
  const got = await stack.api('GET', `/api/v1/connectors/${res.body.id}`);
  t.is(got.status, 200);
  t.deepEqual(got.body, res.body);
});

test('create: a matching preset fills metadata and is named; match_preset false skips it', async (t) => {
  const matched = await create({ url: 'https://PRESET.example:443/mcp/' });
  t.is(matched.status, 201);
  t.deepEqual(matched.body.preset, { url: 'https://preset.example/mcp' });
  t.deepEqual(matched.body.metadata, { name: 'Preset', description: 'A preset' });
  t.false(matched.text.includes('preset-secret'));
  const skipped = await create({ url: 'https://preset.example/mcp', match_preset: false });
  t.is(skipped.body.preset, null);
  t.deepEqual(skipped.body.metadata, {});
});

test('create refuses URLs whose address embeds a forbidden IPv4 address (NAT64, 6to4, Teredo, IPv4-compatible, mapped), contacting nothing', async (t) => {
  for (const host of [
    '[64:ff9b::a9fe:a9fe]', '[64:ff9b:1::a9fe:a9fe]', '[2002:a9fe:a9fe::1]', '[2001:0:4136:e378:8000:63bf:5601:5601]',
    '[::a9fe:a9fe]', '[::ffff:169.254.169.254]', '100.100.100.200', '[64:ff9b::6464:64c8]',
  ]) {
    const res = await stack.api('POST', '/api/v1/connectors', { url: `http://${host}/mcp` });
    t.is(res.status, 422, host);
    t.regex(res.body.detail, /embedding 169\.254\.169\.254|metadata|::ffff:a9fe:a9fe, a linkLocal/, host);
  }
});

test('create: 400 for unparsable JSON, 415 for non-JSON, 422 for invalid bodies, all problem details', async (t) => {
  const bad = await stack.api('POST', '/api/v1/connectors', '{"url":', { 'content-type': 'application/json' });
  t.is(bad.status, 400);
  t.regex(bad.headers.get('content-type') ?? '', /^application\/problem\+json/);
  t.like(bad.body, { status: 400, title: 'Bad Request' });
  const text = await stack.api('POST', '/api/v1/connectors', 'url=x', { 'content-type': 'text/plain' });
  t.is(text.status, 415);
  for (const body of [
    {}, { url: 'ftp://x.example' }, { url: 'not a url' }, { url: upstream.url, client_secret: 'alone' },
    { url: upstream.url, metadata: { k: 'v'.repeat(513) } }, { url: 'mcp+stdio://unknown' },
    { url: 'mcp+stdio://everything', match_preset: false }, { url: 'http://169.254.169.254/latest' }, { url: 'http://[fd00:ec2::254]/' },
  ]) {
    const res = await create(body);
    t.is(res.status, 422, JSON.stringify(body));
    t.is(res.body.status, 422);
    t.true(Array.isArray(res.body.errors) && res.body.errors.length > 0, JSON.stringify(res.body));
  }
});

test('create: an mcp+stdio URL that matches a preset is accepted; the preset list hides env values', async (t) => {
  const res = await create({ url: 'mcp+stdio://everything' });
  t.is(res.status, 201);
  const presets = await stack.api('GET', '/api/v1/connectors/presets');
  t.is(presets.status, 200);
  t.is(presets.body.items.length, 2);
  const { reason, ...shown } = presets.body.items[1];
  t.deepEqual(shown, { url: 'mcp+stdio://everything', metadata: { name: 'Everything', description: 'stdio' }, stdio: { image: 'everything:1' }, runnable: false, source: 'env', version: null });
  t.regex(reason, /container or the Kubernetes runtime/, 'an image-only preset cannot run as a local process, and the list says so');
  t.false(presets.text.includes('env-value-xyz'));
  t.false(presets.text.includes('preset-secret'));
  t.false(presets.text.includes('preset-client'));
});

test('token connect: 200 connected; bad token 502 and disconnected with the reason; disconnect; events', async (t) => {
  const { body: c } = await create({ url: upstream.url });
  const refused = await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, { access_token: 'wrong-token' });
  t.is(refused.status, 502);
  t.regex(refused.body.detail, /refused the token/);
  const afterRefusal = await stack.api('GET', `/api/v1/connectors/${c.id}`);
  t.like(afterRefusal.body, { state: 'disconnected', disconnect_permanent: true });
  t.regex(afterRefusal.body.disconnect_reason, /401/);

  const ok = await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, { access_token: 'good-token-123' });
  t.is(ok.status, 200);
  t.like(ok.body, { state: 'connected', disconnect_reason: null });
  t.is((await stack.api('GET', `/api/v1/connectors/${c.id}`)).body.state, 'connected'); // projection written before the answer
  t.false(ok.text.includes('good-token-123'));

  const again = await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, { access_token: 'good-token-123' });
  t.is(again.status, 200, 'connect is accepted while connected (replaces the token)');

  const off = await stack.api('POST', `/api/v1/connectors/${c.id}/disconnect`);
  t.is(off.status, 200);
  t.like(off.body, { state: 'disconnected', disconnect_reason: 'disconnected by api' });
  const offAgain = await stack.api('POST', `/api/v1/connectors/${c.id}/disconnect`);
  t.is(offAgain.status, 200, 'disconnect while disconnected is accepted without change');
  t.is(offAgain.body.updated_at, off.body.updated_at);

  const events = await stack.api('GET', `/api/v1/connectors/${c.id}/events`);
  t.is(events.status, 200);
  t.deepEqual(events.body.items.map((e: { from: string | null; to: string }) => [e.from, e.to]), [
    [null, 'created'], ['created', 'connecting'], ['connecting', 'disconnected'], ['disconnected', 'connecting'], ['connecting', 'connected'],
    ['connected', 'connecting'], ['connecting', 'connected'], ['connected', 'disconnecting'], ['disconnecting', 'disconnected'],
  ]);
  for (const e of events.body.items) {
    t.truthy(Date.parse(e.time));
    t.truthy(e.actor);
  }
  t.is(events.body.total_count, 9);
  const paged = await stack.api('GET', `/api/v1/connectors/${c.id}/events?limit=4`);
  t.true(paged.body.has_more);
  const next = await stack.api('GET', `/api/v1/connectors/${c.id}/events?limit=4&page_token=${paged.body.next_page_token}`);
  t.deepEqual(next.body.items.map((e: { seq: number }) => e.seq), [5, 6, 7, 8]);
});

test('connect: 504 when the server does not answer in time, 502 when nothing listens; the record says why', async (t) => {
  const hanging = await startTokenMcpServer({ token: null });
  hanging.setHang(true);
  const { body: slow } = await create({ url: hanging.url });
  const timedOut = await stack.api('POST', `/api/v1/connectors/${slow.id}/connect`, { access_token: 't' });
  t.is(timedOut.status, 504);
  const record = (await stack.api('GET', `/api/v1/connectors/${slow.id}`)).body;
  t.is(record.state, 'disconnected');
  t.regex(record.disconnect_reason, /did not answer in time/);
  await hanging.close();

  const { body: dead } = await create({ url: hanging.url }); // its port is closed now
  const unreachable = await stack.api('POST', `/api/v1/connectors/${dead.id}/connect`, { access_token: 't' });
  t.is(unreachable.status, 502);
  t.regex((await stack.api('GET', `/api/v1/connectors/${dead.id}`)).body.disconnect_reason, /could not be reached/);
});

test('connect with Prefer: respond-async answers 202 connecting, then the record becomes connected', async (t) => {
  const { body: c } = await create({ url: upstream.url });
  const res = await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, { access_token: 'good-token-123' }, { prefer: 'respond-async' });
  t.is(res.status, 202);
  t.is(res.body.state, 'connecting');
  t.is(res.headers.get('preference-applied'), 'respond-async');
  const connected = await eventually(async () => {
    const now = await stack.api('GET', `/api/v1/connectors/${c.id}`);
    return now.body.state === 'connected' ? now.body : undefined;
  }, 10_000, 'the record to become connected');
  t.is(connected.state, 'connected');
});

test('409 for a wrong state, 404 for unknown and malformed ids, 422 for a bad connect body', async (t) => {
  const { body: c } = await create({ url: upstream.url });
  const early = await stack.api('POST', `/api/v1/connectors/${c.id}/disconnect`);
  t.is(early.status, 409);
  t.is(early.body.detail, 'the connector was never connected', "the state machine's own reason reaches the caller");
  const badBody = await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, { redirect_url: 'javascript:alert(1)' });
  t.is(badBody.status, 422);
  const unknown = '00000000-0000-4000-8000-000000000000';
  for (const [method, path] of [
    ['GET', `/api/v1/connectors/${unknown}`], ['DELETE', `/api/v1/connectors/${unknown}`], ['POST', `/api/v1/connectors/${unknown}/connect`],
    ['POST', `/api/v1/connectors/${unknown}/disconnect`], ['GET', `/api/v1/connectors/${unknown}/events`], ['GET', '/api/v1/connectors/not-a-uuid'],
  ] as const) {
    const res = await stack.api(method, path);
    t.is(res.status, 404, `${method} ${path}`);
    t.is(res.body.status, 404);
  }
  const del = await stack.api('DELETE', `/api/v1/connectors/${c.id}`);
  t.is(del.status, 202);
  t.is(del.body.state, 'deleting');
  const connectWhileDeleting = await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, { access_token: 'x' });
  t.true([404, 409].includes(connectWhileDeleting.status), String(connectWhileDeleting.status));
});

test('delete: 202 deleting, then the record is gone (404) while its audit trail was written', async (t) => {
  const { body: c } = await create({ url: upstream.url });
  await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, { access_token: 'good-token-123' });
  const del = await stack.api('DELETE', `/api/v1/connectors/${c.id}`);
  t.is(del.status, 202);
  t.is(del.body.state, 'deleting');
  let status = 0;
  for (let i = 0; i < 100 && status !== 404; i++) {
    status = (await stack.api('GET', `/api/v1/connectors/${c.id}`)).status;
    if (status !== 404) await new Promise((r) => setTimeout(r, 100));
  }
  t.is(status, 404);

  // The trail is kept CONNECTOR__EVENTS_RETENTION_DAYS (7 here) after the removal, then expires.
  const mongo = new MongoClient(stack.mongoUri);
  t.teardown(() => mongo.close());
  const trail = await mongo.db(stack.config.mongo.database).collection('connector_events').find({ connector_id: c.id }).toArray();
  t.true(trail.length >= 3);
  const day = 86_400_000;
  for (const event of trail) {
    t.true(event.expires_at instanceof Date);
    t.true(event.expires_at > new Date(Date.now() + 6 * day) && event.expires_at <= new Date(Date.now() + 7 * day));
  }
});

test('list: paging with limit/page_token/total_count/has_more survives inserts between pages; state filter', async (t) => {
  const mine = new Set<string>();
  for (let i = 0; i < 5; i++) mine.add((await create({ url: upstream.url, metadata: { batch: 'paging' } })).body.id);
  const seen: string[] = [];
  let token: string | null = null;
  let pages = 0;
  do {
    const res = await stack.api('GET', `/api/v1/connectors?limit=2${token ? `&page_token=${token}` : ''}`);
    t.is(res.status, 200);
    t.true(res.body.items.length <= 2);
    t.true(res.body.total_count >= 5);
    seen.push(...res.body.items.map((c: { id: string }) => c.id));
    token = res.body.next_page_token;
    t.is(res.body.has_more, token !== null);
    if (pages++ === 0) await create({ url: upstream.url }); // inserted between pages
  } while (token && pages < 200);
  t.is(new Set(seen).size, seen.length, 'no connector appears twice');
  for (const id of mine) t.true(seen.includes(id));
  const created = await stack.api('GET', '/api/v1/connectors?state=created&limit=100');
  t.true(created.body.items.length > 0, 'the filter finds the connectors created here');
  t.true(created.body.items.every((c: { state: string }) => c.state === 'created'));
  t.true(created.body.total_count >= mine.size);
  t.is(typeof created.body.total_count_exact, 'boolean');
  const none = await stack.api('GET', '/api/v1/connectors?state=deleting&limit=100');
  t.false(none.body.items.some((c: { id: string }) => mine.has(c.id)), 'connectors in another state are left out');
  for (const q of ['limit=0', 'limit=101', 'limit=abc', 'state=bogus', 'page_token=%%%', 'page_token=abc', 'unknown=1', 'limit=1&limit=2']) {
    const res = await stack.api('GET', `/api/v1/connectors?${q}`);
    t.is(res.status, 422, q);
  }
});

test('openapi.json is an OpenAPI 3.1 document of the endpoints, generated from the schemas', async (t) => {
  const res = await stack.api('GET', '/api/v1/openapi.json');
  t.is(res.status, 200);
  t.is(res.body.openapi, '3.1.0');
  t.deepEqual(Object.keys(res.body.paths).sort(), [
    '/', '/api/v1/caller', '/console/config.json', '/console/{file}', '/reference',
    '/.well-known/oauth-protected-resource/api/v1/connectors/{id}/mcp', '/api/v1/connectors', '/api/v1/connectors/oauth/authorize', '/api/v1/connectors/oauth/callback', '/api/v1/connectors/presets', '/api/v1/connectors/presets/{name}/approve', '/api/v1/connectors/{id}',
    '/api/v1/connectors/{id}/calls', '/api/v1/connectors/{id}/connect', '/api/v1/connectors/{id}/disconnect', '/api/v1/connectors/{id}/events', '/api/v1/connectors/{id}/tasks', '/api/v1/connectors/{id}/tasks/{taskId}/approval',
    '/api/v1/connectors/{id}/mcp', '/api/v1/oauth/client-metadata.json', '/api/v1/openapi.json', '/healthz', '/metrics', '/readyz',
    '/.well-known/oauth-protected-resource/api/v1/toolsets/{id}/mcp', '/api/v1/toolsets', '/api/v1/toolsets/{id}', '/api/v1/toolsets/{id}/calls', '/api/v1/toolsets/{id}/tasks', '/api/v1/toolsets/{id}/mcp',
  ].sort(), 'every path the service answers, and nothing else');
  t.deepEqual(Object.keys(res.body.paths['/api/v1/connectors/oauth/callback'].get.responses).sort(), ['200', '302', '400', '503']);
  const createSchema = res.body.components.schemas.CreateConnectorRequest;
  t.deepEqual(createSchema.required, ['url']);
  t.truthy(createSchema.properties.match_preset);
  t.truthy(res.body.components.schemas.Connector.properties.disconnect_reason);
  t.truthy(res.body.components.schemas.Connector.properties.created_by_name, 'the owner\'s readable name is in the schema');
  const listSchema = res.body.components.schemas.ConnectorList;
  t.like(listSchema.properties.total_count_exact, { type: 'boolean' });
  t.true(listSchema.required.includes('total_count_exact'), 'every list says whether its count is exact');
  const listParameters = res.body.paths['/api/v1/connectors'].get.parameters.map((p: { name: string }) => p.name).sort();
  t.deepEqual(listParameters, ['created_by', 'limit', 'page_token', 'state'], 'query parameters come from the schema the route validates with');
  const callParameters = res.body.paths['/api/v1/connectors/{id}/calls'].get.parameters.map((p: { name: string }) => p.name).sort();
  t.deepEqual(callParameters, ['error', 'limit', 'method', 'page_token', 'since', 'status', 'until']);
  t.truthy(res.body.components.schemas.ConnectorCall.properties.rpc_error_code);
  t.deepEqual(res.body.components.schemas.ConnectorCallList.properties.items.items, { $ref: '#/components/schemas/ConnectorCall' });
  t.deepEqual(res.body.components.securitySchemes, { bearer: { type: 'http', scheme: 'bearer' } });
});

test('healthz and readyz answer 200 when everything is up', async (t) => {
  t.is((await stack.api('GET', '/healthz')).status, 200);
  const ready = await stack.api('GET', '/readyz');
  t.is(ready.status, 200);
  t.deepEqual(ready.body.checks, { temporal: 'ok', database: 'ok' });
});

test('no token, client secret or preset env value reaches the logs or the data dir in plaintext', async (t) => {
  const { body: c } = await create({ url: upstream.url, client_id: 'cid', client_secret: 'client-secret-987' });
  await stack.api('POST', `/api/v1/connectors/${c.id}/connect`, { access_token: 'good-token-123' });
  // A preset's credentials and env values are configuration: its connectors refer to it by URL.
  t.is((await create({ url: 'https://preset.example/mcp' })).status, 201);
  const { body: stdio } = await create({ url: 'mcp+stdio://everything' });
  t.is((await stack.api('POST', `/api/v1/connectors/${stdio.id}/connect`, {})).status, 422, 'the preset has no command to run locally');
  const { filesContaining } = await import('../helpers/test-stack');
  for (const secret of ['good-token-123', 'client-secret-987', 'wrong-token', 'preset-secret', 'env-value-xyz']) {
    t.deepEqual(filesContaining(stack.dataDir, secret), [], secret);
  }
});
