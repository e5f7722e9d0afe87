// The id a toolset's caller holds for a member's task: `<prefix>__<the member's task id,
// base64url>.<tag>`. The prefix finds the member on any replica without a table; the tag (a MAC
// under the service's key) binds the id to this toolset and this caller, so an id copied to
// another caller, another toolset or another member opens nothing (it is answered as an unknown
// task). The same task has the same id in every answer and status notification.
import { timingSafeEqual } from 'node:crypto';
import { TOOL_SEPARATOR, type ToolsetMember } from '../../contract/toolset-record';
import { secretContext } from '../../platform/secret-box';
import type { ToolsetContext } from './toolset-context';

const idContext = (ctx: ToolsetContext, member: ToolsetMember) =>
  secretContext(ctx.toolset.id, `toolset-task/${member.prefix}/${ctx.caller.subject}`);

/** `<prefix>__<the member's id, base64url>.<its tag>`: the same id in every answer that names the task. */
export function toolsetTaskId(ctx: ToolsetContext, member: ToolsetMember, memberTaskId: string): string {
  const tag = ctx.deps.tasks!.secrets.tag(memberTaskId, idContext(ctx, member));
  return `${member.prefix}${TOOL_SEPARATOR}${Buffer.from(memberTaskId, 'utf8').toString('base64url')}.${tag}`;
}

export function openTaskId(ctx: ToolsetContext, clientId: string): { member: ToolsetMember; memberTaskId: string } | null {
  const at = clientId.indexOf(TOOL_SEPARATOR);
  const member = at > 0 ? ctx.toolset.members.find((m) => m.prefix === clientId.slice(0, at)) : undefined;
  const [encoded, tag, extra] = clientId.slice(at + TOOL_SEPARATOR.length).split('.');
  if (!member || !encoded || !tag || extra !== undefined) return null;
  const memberTaskId = Buffer.from(encoded, 'base64url').toString('utf8');
  const expected = Buffer.from(ctx.deps.tasks!.secrets.tag(memberTaskId, idContext(ctx, member)));
  const given = Buffer.from(tag);
  return expected.length === given.length && timingSafeEqual(expected, given) ? { member, memberTaskId } : null;
}
