// A database on a client of its own that records the names of the commands sent to it, in order:
// for tests that count what a store sends (one command, not four).
import type { ExecutionContext } from 'ava';
import { MongoClient, type Db } from 'mongodb';

export async function watchedDatabase(t: ExecutionContext, uri: string, database: string): Promise<{ db: Db; commands: string[] }> {
  const client = await MongoClient.connect(uri, { monitorCommands: true });
  t.teardown(() => client.close());
  const commands: string[] = [];
  client.on('commandStarted', (e) => { if (e.databaseName === database) commands.push(e.commandName); });
  return { db: client.db(database), commands };
}
