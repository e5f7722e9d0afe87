// Which member a prefixed name (a tool or a prompt) belongs to.
import { TOOL_SEPARATOR, type ToolsetMember, type ToolsetRecord } from '../../contract/toolset-record';

/** The member whose prefix the name carries (the longest, should one prefix extend another). */
export function memberOf(toolset: ToolsetRecord, name: string): ToolsetMember | undefined {
  let found: ToolsetMember | undefined;
  for (const member of toolset.members) {
    if (name.startsWith(member.prefix + TOOL_SEPARATOR) && (!found || member.prefix.length > found.prefix.length)) found = member;
  }
  return found;
}
