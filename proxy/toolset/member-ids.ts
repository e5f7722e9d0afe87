// The ids of requests members send to the client (2025-era elicitation, sampling, roots), as the
// toolset's client sees them: the member's prefix and its own id in one string, so that the
// client's response, whichever replica it reaches, goes back to the member that asked, with the id
// it used, and two members' ids never collide.
import type { RpcId } from './rpc';

const PREFIX = 'toolset-member:';

export const clientRequestId = (prefix: string, id: RpcId): string => `${PREFIX}${prefix}:${JSON.stringify(id)}`;

/** The member's prefix and its own id, or null for an id the toolset did not hand out. */
export function memberRequestId(id: unknown): { prefix: string; id: RpcId } | null {
  if (typeof id !== 'string' || !id.startsWith(PREFIX)) return null;
  const rest = id.slice(PREFIX.length);
  const colon = rest.indexOf(':');
  if (colon <= 0) return null;
  try {
    const own = JSON.parse(rest.slice(colon + 1)) as unknown;
    return typeof own === 'string' || typeof own === 'number' ? { prefix: rest.slice(0, colon), id: own } : null;
  } catch {
    return null;
  }
}
