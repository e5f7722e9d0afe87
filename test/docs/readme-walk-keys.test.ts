// The README's first-connector walk works as written once API keys are set: the key goes in
// KEY, the one place the header is written; the loopback MCP server is let through by
// CONNECTOR__ALLOWED_PRIVATE_NETWORKS, as the README says. Without the key, curl says the 401
// (--fail-with-body) and a script stops there, never going on with a silent `ID=null`.
import test from 'ava';
import { sha256Hex } from '../../callers/api-keys';
import { startTokenMcpServer, type TokenMcpServer } from '../fixtures/token-mcp-server';
import { startTestStack, type TestStack } from '../helpers/test-stack';
import { runWalk } from './readme-walk';

const TOKEN = 'readme-walk-keys-token-81c2';
const KEY = 'readme-walk-api-key-5d6e7f8091';
let stack: TestStack;
let upstream: TokenMcpServer;

test.before(async () => {
  upstream = await startTokenMcpServer({ token: TOKEN });
  stack = await startTestStack({
    CONNECTOR__API_KEYS: JSON.stringify([{ subject: 'reader', sha256: sha256Hex(KEY) }]),
    CONNECTOR__ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8,::1/128',
  });
});
test.after.always(async () => {
  await stack?.stop();
  await upstream?.close();
});

test.serial('with API keys set, the walk with KEY set to a key connects and relays initialize', async (t) => {
  const { stdout, stderr } = await runWalk({ address: `127.0.0.1:${stack.port}`, serverUrl: upstream.url, token: TOKEN, key: KEY });
  const [state, ...rest] = stdout.trim().split('\n');
  t.is(state, 'connected', stderr);
  t.is((JSON.parse(rest.join('\n')) as { serverInfo?: { name?: string } }).serverInfo?.name, 'token-test-server');
  const mine = await stack.api('GET', '/api/v1/connectors', undefined, { authorization: `Bearer ${KEY}` });
  t.is(mine.body.items[0]?.created_by, 'key:reader');
});

test.serial('with API keys set and KEY left as the placeholder, the walk stops at its first line', async (t) => {
  const reached = upstream.seenAuthorization.length;
  const error = await t.throwsAsync(runWalk({ address: `127.0.0.1:${stack.port}`, serverUrl: upstream.url, token: TOKEN }));
  t.regex(`${(error as { stderr?: string }).stderr ?? ''}`, /returned error: 401/, 'curl says the key was refused');
  t.regex(`${(error as { stdout?: string }).stdout ?? ''}`, /^\s*$/, 'and the walk went no further');
  t.is(upstream.seenAuthorization.length, reached, 'the MCP server heard nothing of it');
});
