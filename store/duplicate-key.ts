// Telling "already written" (a retried write meeting its own earlier attempt) from a write that
// did not happen. Both the store's single inserts and its unordered bulk inserts use it.

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
