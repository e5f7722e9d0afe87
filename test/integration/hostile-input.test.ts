// Several thousand malformed or hostile requests against one real stack: bodies, paths, ids,
// queries, headers, methods, the MCP path. Every one must be answered with a 4xx problem detail
// (or, for the few well-formed oddities, its ordinary answer), never a 5xx, and the service must
// be healthy afterwards. Generated from a fixed seed: a failure names the case's index.
import fs from 'node:fs';
import test from 'ava';
import { Random } from '../helpers/hostile-random';
import { hostileBodies } from '../helpers/hostile-bodies';
import { sendRaw } from '../helpers/hostile-raw';
import { hostileSender, violation, type HostileCase } from '../helpers/hostile-send';
import { headerCases, idCases, mcpCases, methodCases, queryCases, structuralPathCases } from '../helpers/hostile-targets';
import { startTestStack, type TestStack } from '../helpers/test-stack';
import { undeclaredAnswers } from '../helpers/declared-answers';

const SEED = 0x5eed_2026;
const BODY_LIMIT = 64 * 1024; // small, so that bodies over it stay cheap to send
const CONCURRENCY = 16;

let stack: TestStack;
let createdId: string;

test.before(async () => {
  // The subject is what hostile bytes provoke, not latency: a route read from Temporal that a busy
  // machine (this file's thousands of creates, CI's other files) keeps past the default 2 s is an
  // honest 503 with Retry-After, which this file must not count as the input's doing.
  stack = await startTestStack({ CONNECTOR__BODY_LIMIT: '64kb', CONNECTOR__ROUTE_LOAD_TIMEOUT_MS: '30000' });
  const created = await stack.api('POST', '/api/v1/connectors', { url: 'http://127.0.0.1:9/mcp', metadata: { name: 'target' } });
  if (created.status !== 201) throw new Error(`setup: create answered ${created.status} ${created.text}`);
  createdId = created.body.id;
});

// Every answer of this file is one its operation declares (contract/operations.ts).
test.after('no handler answered a status or problem type its operation does not declare', (t) => {
  t.deepEqual(undeclaredAnswers(stack.logFile), []);
});

test.after.always(async () => {
  if (!stack) return;
  // A create that never got its answer leaves its workflow retrying, and the API's pending call
  // to Temporal would outlive the connection closed by stop(): end those workflows first.
  for await (const wf of stack.temporal.workflow.list({ query: 'ExecutionStatus="Running"' })) {
    await stack.temporal.workflow.getHandle(wf.workflowId).terminate('test teardown').catch(() => undefined);
  }
  await stack.stop();
});

function allCases(): HostileCase[] {
  const random = new Random(SEED);
  const known = { createdId };
  const limits = { bodyLimit: BODY_LIMIT };
  const bodyCases = (endpoint: 'create' | 'connect', path: string): HostileCase[] =>
    hostileBodies(endpoint, random, limits).map((b) => ({ name: `${endpoint}: ${b.name}`, method: 'POST', path, headers: b.headers, body: b.body, expect: b.expect }));
  return [
    ...bodyCases('create', '/api/v1/connectors'),
    ...bodyCases('connect', `/api/v1/connectors/${createdId}/connect`),
    ...idCases(random, 190),
    ...structuralPathCases(random, known),
    ...methodCases(random, known),
    ...queryCases(random, known),
    ...headerCases(random, known),
    ...mcpCases(random, known),
  ];
}

test.serial('thousands of hostile requests: each a 4xx problem detail (or its ordinary answer), never a 5xx', async (t) => {
  const cases = allCases();
  t.true(cases.length >= 3000, `only ${cases.length} cases`);
  const sender = hostileSender(`http://127.0.0.1:${stack.port}`, CONCURRENCY);
  try {
    const { failures, statuses } = await sender.run(cases, CONCURRENCY);
    t.log(`${cases.length} requests; statuses: ${[...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ')}`);
    t.deepEqual(failures.slice(0, 25), [], `${failures.length} of ${cases.length} answers broke the contract`);
    for (const status of [400, 403, 404, 405, 409, 413, 415, 422]) t.true((statuses.get(status) ?? 0) > 0, `no ${status} at all: the generators lost a category`);
  } finally {
    await sender.close();
  }
  t.is(Object.keys(Object.prototype).length, 0, 'Object.prototype gained keys');
  t.is(({} as Record<string, unknown>).polluted, undefined, 'prototype polluted');
  const errors = fs.readFileSync(stack.logFile, 'utf8').split('\n').filter((line) => line.includes('"level":50'));
  t.deepEqual(errors.slice(0, 5), [], 'the service logged errors while answering');
});

test.serial('metadata keys that are legal JSON but not legal database field names are refused or stored, and answered', async (t) => {
  // Each create must be answered promptly: either 422, or 201 with the metadata readable as sent.
  const sender = hostileSender(`http://127.0.0.1:${stack.port}`, 5);
  try {
    const keys = ['$set', 'a.b', '\u0000', '$where', '.'];
    const outcomes = await Promise.all(keys.map(async (key) => {
      const metadata = { [key]: 'v' };
      const answer = await sender.send({
        name: 'metadata key', method: 'POST', path: '/api/v1/connectors',
        headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: 'http://127.0.0.1:9/mcp', metadata }),
      }).catch((err: Error) => ({ status: 0, text: `no answer: ${err.message}`, headers: {} }));
      if (answer.status === 422) return `${JSON.stringify(key)}: refused`;
      if (answer.status !== 201) return `${JSON.stringify(key)}: ${answer.status} ${answer.text.slice(0, 100)}`;
      const got = await stack.api('GET', `/api/v1/connectors/${JSON.parse(answer.text).id}`);
      return `${JSON.stringify(key)}: ${JSON.stringify(got.body?.metadata) === JSON.stringify(metadata) ? 'stored' : `stored as ${JSON.stringify(got.body?.metadata)}`}`;
    }));
    t.deepEqual(outcomes.filter((o) => !/: (refused|stored)$/.test(o)), []);
  } finally {
    await sender.close();
  }
});

test.serial('metadata keys named like Object.prototype members are plain keys', async (t) => {
  const metadata = { constructor: 'c', toString: 't', hasOwnProperty: 'h', valueOf: 'v', prototype: 'p' };
  const created = await stack.api('POST', '/api/v1/connectors', { url: 'http://127.0.0.1:9/mcp', metadata });
  t.is(created.status, 201, created.text);
  t.deepEqual(created.body.metadata, metadata);
  t.deepEqual((await stack.api('GET', `/api/v1/connectors/${created.body.id}`)).body.metadata, metadata);
});

test.serial('events page tokens whose position is not a number are refused without disturbing the database', async (t) => {
  const token = (position: unknown) => Buffer.from(JSON.stringify(position)).toString('base64url');
  const wrong: string[] = [];
  for (const k of ['zzzz', '$gt', '', '1e999', 'NaN', '\u0000']) {
    const path = `/api/v1/connectors/${createdId}/events?page_token=${token({ k, id: 'x' })}`;
    const answer = await stack.api('GET', path);
    const problem = violation({ name: 'events token', method: 'GET', path, expect: [200, 422] }, { status: answer.status, headers: Object.fromEntries(answer.headers), text: answer.text });
    if (problem) wrong.push(`k=${JSON.stringify(k)}: ${problem.slice(0, 60)}`);
    // The database connection must survive the query: the next read on it works.
    const after = await stack.api('GET', `/api/v1/connectors/${createdId}/events`);
    if (after.status !== 200) wrong.push(`after k=${JSON.stringify(k)}: ${after.status}`);
  }
  t.deepEqual(wrong, []);
});

test.serial("requests Node's HTTP parser refuses are answered with problem details too", async (t) => {
  const host = `Host: 127.0.0.1:${stack.port}\r\n`;
  const requests: [string, Buffer | string][] = [
    ['non-ASCII bytes in the target', Buffer.concat([Buffer.from('GET /api/v1/connectors/'), Buffer.from([0xff, 0xfe]), Buffer.from(` HTTP/1.1\r\n${host}\r\n`)])],
    ['headers over 16 KiB', `GET /api/v1/connectors HTTP/1.1\r\n${host}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`],
    ['unknown method token', `FOO /api/v1/connectors HTTP/1.1\r\n${host}\r\n`],
    ['Content-Length with Transfer-Encoding', `POST /api/v1/connectors HTTP/1.1\r\n${host}Content-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}`],
    ['space in a header name', `GET /api/v1/connectors HTTP/1.1\r\n${host}Bad Name: x\r\n\r\n`],
  ];
  const wrong: string[] = [];
  for (const [name, request] of requests) {
    const answer = await sendRaw(stack.port, request).catch((err: Error) => ({ status: 0, headers: {}, text: err.message }));
    const problem = violation({ name, method: 'GET', path: '(raw)', expect: [400, 431] }, answer);
    if (problem) wrong.push(`${name}: ${answer.status} ${problem}`);
  }
  t.deepEqual(wrong, []);
});

test.serial('afterwards the service is healthy: ready, and a normal create and get work', async (t) => {
  t.is((await stack.api('GET', '/readyz')).status, 200);
  t.is((await stack.api('GET', '/healthz')).status, 200);
  const created = await stack.api('POST', '/api/v1/connectors', { url: 'https://after.example/mcp', metadata: { name: 'after' } });
  t.is(created.status, 201, created.text);
  const got = await stack.api('GET', `/api/v1/connectors/${created.body.id}`);
  t.is(got.status, 200);
  t.like(got.body, { id: created.body.id, url: 'https://after.example/mcp', state: 'created', metadata: { name: 'after' } });
  t.is((await stack.api('GET', `/api/v1/connectors/${createdId}`)).body.state, 'created', 'no hostile request changed the target connector');
});
