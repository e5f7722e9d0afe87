// MongoDB: a 2025 toolset client's answers to the questions the toolset asked it for a 2026
// member (proxy/toolset/input-bridge.ts), from the replica the answer reached to the one whose
// call waits on it. Each answer is sealed before it is written, keyed by a hash of its session and
// the question's id, and taken (deleted) by the waiting replica; answers nobody took (the call had
// ended) go after an hour (`sweep`, as FerretDB has no TTL indexes).
import type { Collection, Db } from 'mongodb';
import { onlyDuplicateKeys } from './duplicate-key';

interface AnswerDoc {
  _id: string;
  sealed: string;
  at: Date;
}

const KEEP_MS = 60 * 60_000;

export class ToolsetInputStore {
  private readonly answers: Collection<AnswerDoc>;

  constructor(db: Db) {
    this.answers = db.collection<AnswerDoc>('toolset_input_answers');
  }

  async ensureIndexes(): Promise<void> {
    await this.answers.createIndex({ at: 1 });
  }

  /** A client that sends its answer twice: the first stands. */
  async put(session: string, requestId: string, sealed: string): Promise<void> {
    try {
      await this.answers.insertOne({ _id: `${session}|${requestId}`, sealed, at: new Date() });
    } catch (err) {
      if (!onlyDuplicateKeys(err)) throw err;
    }
  }

  async take(session: string, requestIds: readonly string[]): Promise<Map<string, string>> {
    const ids = requestIds.map((id) => `${session}|${id}`);
    const docs = await this.answers.find({ _id: { $in: ids } }).toArray();
    if (docs.length > 0) await this.answers.deleteMany({ _id: { $in: docs.map((d) => d._id) } });
    return new Map(docs.map((d) => [d._id.slice(session.length + 1), d.sealed]));
  }

  async sweep(now = Date.now()): Promise<number> {
    return (await this.answers.deleteMany({ at: { $lt: new Date(now - KEEP_MS) } })).deletedCount;
  }
}
