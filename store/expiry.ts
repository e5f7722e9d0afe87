// Documents that expire: a TTL index where the database has them, and a sweep that deletes the
// same documents where it does not. FerretDB 1.24 (the embedded database) answers an index with
// expireAfterSeconds with NotImplemented and never expires anything, so there a plain index on
// the field stands in and the worker's sweep (service/expiry-sweeper.ts) holds the bound.
import type { Collection, Document, Filter } from 'mongodb';

export interface Expiry {
  /** A BSON Date field: TTL indexes ignore documents where it holds anything else. */
  field: string;
  /** How long after that date the document goes. */
  afterSeconds: number;
}

const NOT_IMPLEMENTED = 238;

/** True when the database expires documents itself; false when only the sweep will. */
export async function ensureTtlIndex<T extends Document>(collection: Collection<T>, expiry: Expiry): Promise<boolean> {
  const key = { [expiry.field]: 1 };
  try {
    await collection.createIndex(key, { expireAfterSeconds: expiry.afterSeconds });
    return true;
  } catch (err) {
    if ((err as { code?: number }).code !== NOT_IMPLEMENTED) throw err;
    await collection.createIndex(key);
    return false;
  }
}

/** Deletes what the TTL index would: documents whose date lies at least `afterSeconds` before `now`. */
export async function sweepExpired<T extends Document>(collection: Collection<T>, expiry: Expiry, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - expiry.afterSeconds * 1000);
  const { deletedCount } = await collection.deleteMany({ [expiry.field]: { $lte: cutoff } } as Filter<T>);
  return deletedCount;
}
