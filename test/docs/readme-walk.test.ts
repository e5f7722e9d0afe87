// The README's first-connector walk works as written on the loopback default (no caller
// credential): create, connect with a token, and an MCP `initialize` whose SSE answer `sed` turns
// into JSON for jq. On the same service: a server that wants a token and offers no OAuth answers
// 422 `token-required` when connected without one (item 3 of issue 38), and a wrong token is one
// warning line naming the connector and the reason, never an activity's stack (item 8).
import { readFileSync } from 'node:fs';
import test from 'ava';
import { startTokenMcpServer, type TokenMcpServer } from '../fixtures/token-mcp-server';
import { startTestStack, type TestStack } from '../helpers/test-stack';
import { runWalk, walkBlock } from './readme-walk';

const TOKEN = 'readme-walk-token-3f9a';
let stack: TestStack;
let upstream: TokenMcpServer;

test.before(async () => {
  upstream = await startTokenMcpServer({ token: TOKEN });
  stack = await startTestStack();
});
test.after.always(async () => {
  await stack?.stop();
  await upstream?.close();
});

test('the walk shows the Authorization header once, and reads the SSE answer with sed before jq', (t) => {
  const block = walkBlock();
  t.is(block.split('authorization: Bearer').length, 2, 'the header is written once, in the api function');
  t.true(block.includes("sed -n '/^{/p; s/^data: //p' | jq"));
});

test('the README walk, pasted as written, connects and relays the MCP server\'s initialize', async (t) => {
  const { stdout, stderr } = await runWalk({ address: `127.0.0.1:${stack.port}`, serverUrl: upstream.url, token: TOKEN });
  const [state, ...rest] = stdout.trim().split('\n');
  t.is(state, 'connected', stderr);
  const result = JSON.parse(rest.join('\n')) as { serverInfo?: { name?: string }; protocolVersion?: string };
  t.is(result.serverInfo?.name, 'token-test-server');
  t.is(result.protocolVersion, '2025-11-25');
});

test('connected without a token, a server that offers no OAuth answers 422 token-required, saying a token is needed', async (t) => {
  const created = await stack.api('POST', '/api/v1/connectors', { url: upstream.url });
  const res = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, {});
  t.is(res.status, 422, res.text);
  t.is(res.body.type, 'https://connector-registry.dev/problems/token-required');
  t.regex(res.body.detail, /needs a credential and offers no OAuth sign-in.*connect it with a token/);
});

test('a wrong token is one warning line naming the connector and the reason, with no stack', async (t) => {
  const created = await stack.api('POST', '/api/v1/connectors', { url: upstream.url });
  const id = created.body.id as string;
  const res = await stack.api('POST', `/api/v1/connectors/${id}/connect`, { access_token: 'not-the-token' });
  t.is(res.status, 502, res.text);
  t.regex(res.body.detail, /refused the token \(HTTP 401\)/);
  // The answer can reach the test before the worker's line reaches the log file: read until it is there.
  const linesOf = () => readFileSync(stack.logFile, 'utf8').split('\n').filter((line) => line.includes(id));
  for (let tries = 0; tries < 100 && !linesOf().some((line) => line.includes('failed')); tries++) await new Promise((r) => setTimeout(r, 100));
  const lines = linesOf();
  const failures = lines.filter((line) => line.includes('failed'));
  t.is(failures.length, 1, failures.join('\n'));
  const line = JSON.parse(failures[0]!) as { level: number; msg: string; connector: string; stack?: unknown; error?: unknown };
  t.is(line.level, 40, 'a warning');
  t.is(line.connector, id);
  t.regex(line.msg, new RegExp(`^connector ${id}: \\w+ failed: the MCP server refused the token \\(HTTP 401\\)$`));
  t.false(lines.some((l) => /\\n\s+at /.test(l)), 'no stack trace about this connector anywhere in the log');
});
