// A toolset's members as the API accepts them: each a connector the caller may see (another
// owner's is as unknown as a missing one), each prefix valid and used once. Failures are 422s
// naming the member.
import { mayAccess, type Caller } from '../callers/caller';
import { isConnectorId } from '../contract/connector-id';
import { ProblemError } from '../contract/problem';
import { defaultPrefix, type ToolsetMember } from '../contract/toolset-record';
import type { ConnectorStore } from '../store/connector-store';

export interface MemberInput {
  connector_id: string;
  prefix?: string;
  tools?: { allow?: string[]; deny?: string[] };
}

export async function resolveMembers(inputs: readonly MemberInput[], caller: Caller, store: ConnectorStore): Promise<ToolsetMember[]> {
  const members: ToolsetMember[] = [];
  const errors: { path: string; message: string }[] = [];
  const seenConnectors = new Set<string>();
  const prefixes = new Map<string, number>();
  for (const [i, input] of inputs.entries()) {
    const id = input.connector_id.toLowerCase();
    const record = isConnectorId(id) ? await store.get(id) : null;
    if (!record || !mayAccess(caller, record.created_by)) {
      errors.push({ path: `members.${i}.connector_id`, message: 'no connector with this id that the caller may see' });
      continue;
    }
    if (seenConnectors.has(id)) errors.push({ path: `members.${i}.connector_id`, message: 'this connector is already a member' });
    seenConnectors.add(id);
    const prefix = input.prefix ?? defaultPrefix(record);
    const first = prefixes.get(prefix);
    if (first !== undefined) {
      errors.push({ path: `members.${i}.prefix`, message: `the prefix ${prefix} is already used by members.${first}; give this member a prefix of its own` });
    }
    prefixes.set(prefix, first ?? i);
    members.push({ connector_id: id, prefix, tools: { allow: input.tools?.allow ?? ['*'], deny: input.tools?.deny ?? [] } });
  }
  if (errors.length > 0) throw new ProblemError(422, 'the toolset\'s members are invalid', undefined, errors);
  return members;
}
