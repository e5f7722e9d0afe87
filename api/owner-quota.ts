// A per-owner quota held under concurrent creates (store/owner-slots.ts): a slot is taken before
// the thing is made, confirmed once it exists, and given back if making it failed. The owner's
// count is asked first as well: it also counts what was made before slots existed. An open caller
// (authentication off) has no quota.
import { ProblemError } from '../contract/problem';
import type { OwnerSlots } from '../store/owner-slots';

export interface OwnerQuota {
  slots: OwnerSlots;
  limit: number;
  /** How many the owner has by the records' own count. */
  count(owner: string): Promise<number>;
  /** Whether a record with this id exists (a create that failed after all may have written it). */
  exists(id: string): Promise<boolean>;
  /** What the 429 says, e.g. "connectors ... (CONNECTOR__MAX_CONNECTORS_PER_OWNER)". */
  what: string;
  variable: string;
}

export async function withOwnerSlot<T>(owner: string | null, id: string, quota: OwnerQuota, create: () => Promise<T>): Promise<T> {
  if (owner === null) return create();
  const { slots, limit } = quota;
  const slot = (await quota.count(owner)) < limit ? await slots.reserve(owner, id, limit) : null;
  if (slot === null) {
    throw new ProblemError(429, `this owner already has ${limit} ${quota.what}, the most allowed (${quota.variable})`, 'quota-exceeded');
  }
  let created: T;
  try {
    created = await create();
  } catch (err) {
    // A create that failed after all may have written its record: then the slot stays its own.
    if (!(await quota.exists(id))) await slots.releaseSlot(slot, id);
    throw err;
  }
  await slots.confirm(slot, id);
  return created;
}
