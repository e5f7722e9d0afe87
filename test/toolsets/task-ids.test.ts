// The ids a toolset's callers hold for members' tasks: the same for the same task every time, and
// opened only by the caller and toolset they were made for, on the member they name.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { SecretBox } from '../../platform/secret-box';
import { openTaskId, toolsetTaskId } from '../../proxy/toolset/task-ids';
import type { ToolsetContext } from '../../proxy/toolset/toolset-context';
import { toolsetOf } from './toolset-harness';

const secrets = new SecretBox(randomBytes(32));
const MEMBER_TASK = 'f3a9-task/with odd chars é';

function contextOf(toolsetId: string, subject: string, box = secrets): ToolsetContext {
  return {
    toolset: toolsetOf(toolsetId, { gh: 'connector-1', jira: 'connector-2' }),
    caller: { subject } as ToolsetContext['caller'],
    deps: { tasks: { secrets: box } } as ToolsetContext['deps'],
  } as ToolsetContext;
}

test('an id names its member, reads the same every time, and opens to the member\'s own id', (t) => {
  const ctx = contextOf('ts-1', 'key:alice');
  const gh = ctx.toolset.members[0]!;
  const id = toolsetTaskId(ctx, gh, MEMBER_TASK);
  t.true(id.startsWith('gh__'));
  t.is(toolsetTaskId(ctx, gh, MEMBER_TASK), id);
  t.deepEqual(openTaskId(ctx, id), { member: gh, memberTaskId: MEMBER_TASK });
});

test('another caller, another toolset, another member, another key or a changed id open nothing', (t) => {
  const ctx = contextOf('ts-1', 'key:alice');
  const id = toolsetTaskId(ctx, ctx.toolset.members[0]!, MEMBER_TASK);
  t.is(openTaskId(contextOf('ts-1', 'key:bob'), id), null, 'another caller');
  t.is(openTaskId(contextOf('ts-2', 'key:alice'), id), null, 'another toolset');
  t.is(openTaskId(contextOf('ts-1', 'key:alice', new SecretBox(randomBytes(32))), id), null, 'another key');
  t.is(openTaskId(ctx, id.replace(/^gh__/, 'jira__')), null, 'another member');
  const [encoded, tag] = id.slice('gh__'.length).split('.');
  t.is(openTaskId(ctx, `gh__${Buffer.from('other-task').toString('base64url')}.${tag}`), null, 'another task under the tag');
  t.is(openTaskId(ctx, `gh__${encoded}.${tag!.slice(0, -1)}${tag!.endsWith('A') ? 'B' : 'A'}`), null, 'a changed tag');
  t.is(openTaskId(ctx, `gh__${encoded}.é${tag!.slice(2)}`), null, 'a tag of another length in bytes');
  for (const malformed of ['gh__', `gh__${encoded}`, `gh__${encoded}.${tag}.x`, 'nobody__x.y', `__${encoded}.${tag}`]) t.is(openTaskId(ctx, malformed), null, malformed);
});
