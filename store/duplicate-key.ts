// Telling "already written" (a retried write meeting its own earlier attempt) from a write that
// did not happen. Both the store's single inserts and its unordered bulk inserts use it.
import type { Collection, OptionalUnlessRequiredId } from 'mongodb';

const DUPLICATE_KEY = 11000;

/**
 * True only when the server answered and every document it refused was a duplicate key. The
 * driver (7.x) wraps any failure of `insertMany`, a lost connection or a failed server selection
 * included, in a MongoBulkWriteError with an EMPTY `writeErrors`: taking "no write error was not a
 * duplicate" for success there dropped audit events silently when the database was killed
 * (crash test, database alone killed). So an empty list is a failure, never "only duplicates".
 */
export function onlyDuplicateKeys(err: unknown): boolean {
  const e = err as { code?: number; writeErrors?: { code?: number } | { code?: number }[]; writeConcernError?: unknown };
  if (e.writeConcernError) return false;
  if (e.writeErrors === undefined) return e.code === DUPLICATE_KEY;
  const writeErrors = [e.writeErrors].flat();
  return writeErrors.length > 0 && writeErrors.every((w) => w.code === DUPLICATE_KEY);
}

/**
 * Inserts `docs`, each on its own (unordered: one taken `_id` stops none of the others), and
 * answers those that were not there. Any failure but taken `_id`s is thrown.
 */
export async function insertAbsent<T extends { _id: string }>(collection: Collection<T>, docs: OptionalUnlessRequiredId<T>[]): Promise<OptionalUnlessRequiredId<T>[]> {
  if (docs.length === 0) return docs;
  try {
    // insertOne for a lone document: the driver's bulk path costs about twice its CPU.
    if (docs.length === 1) await collection.insertOne(docs[0]!);
    else await collection.insertMany(docs, { ordered: false });
    return docs;
  } catch (err) {
    if (!onlyDuplicateKeys(err)) throw err;
    // A lone insert's refusal carries no index: it is its one document's.
    const refused = new Set([(err as { writeErrors?: { index: number } | { index: number }[] }).writeErrors ?? { index: 0 }].flat().map((w) => w.index));
    return docs.filter((_, i) => !refused.has(i));
  }
}
