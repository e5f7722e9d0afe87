// docs/toolsets.md's curl example, pasted as written: two connectors connected with their tokens,
// a toolset of both (a deny pattern, an access rule), a 2025-11-25 session, tools/list naming each
// tool by its prefix, and a tools/call through the toolset to the first server.
import test from 'ava';
import { startTokenMcpServer, type TokenMcpServer } from '../fixtures/token-mcp-server';
import { startTestStack, type TestStack } from '../helpers/test-stack';
import { runBlock, walkBlock } from './readme-walk';

const TOKENS = ['toolsets-walk-docs-7e1a', 'toolsets-walk-tickets-2b9c'];
let stack: TestStack;
const upstreams: TokenMcpServer[] = [];

test.before(async () => {
  for (const token of TOKENS) upstreams.push(await startTokenMcpServer({ token }));
  stack = await startTestStack();
});
test.after.always(async () => {
  await stack?.stop();
  for (const upstream of upstreams) await upstream.close();
});

test('the toolsets example connects both, lists both servers\' tools by prefix, and calls one through the toolset', async (t) => {
  const { stdout, stderr } = await runBlock(walkBlock('docs/toolsets.md', '## Example: a toolset'), {
    'localhost:8080': `127.0.0.1:${stack.port}`,
    'https://mcp.example.com/mcp': upstreams[0]!.url, 'https://mcp.example.org/mcp': upstreams[1]!.url,
    '<token of the first>': TOKENS[0]!, '<token of the second>': TOKENS[1]!,
  });
  const lines = stdout.trim().split('\n');
  t.deepEqual(lines.slice(0, 2), ['connected', 'connected'], stderr);
  t.deepEqual(lines.slice(2, 4).sort(), ['docs__echo', 'tickets__echo']);
  const result = JSON.parse(lines.slice(4).join('\n')) as { content: { text: string }[] };
  t.is(result.content[0]?.text, 'hello');
  const toolsets = await stack.api('GET', '/api/v1/toolsets');
  t.like(toolsets.body.items[0], { name: 'support', access: [{ callers: ['key:team-b'], allow: ['docs__*'] }] });
});
