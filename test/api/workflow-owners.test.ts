// Whose a connector is comes from its workflow's memo (api/workflow-owners.ts), against a real
// Temporal dev server: a connector this process created is answered from what its create was
// told, asking Temporal nothing; any other is asked once, then kept; a workflow without the
// service's memo is nobody's.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { Client, Connection } from '@temporalio/client';
import { ownerMemo } from '../../api/connector-commands';
import { workflowOwners } from '../../api/workflow-owners';
import { createLogger } from '../../platform/logger';
import { startTemporalDevServer, type TemporalDevServer } from '../../stack/servers/temporal-dev-server';
import { connectorWorkflowId } from '../../workflows/messages';

let dataDir: string;
let server: TemporalDevServer;
let connection: Connection;
let client: Client;

test.before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'workflow-owners-'));
  server = await startTemporalDevServer({ dataDir, headless: true, log: createLogger('test-workflow-owners', process.env.LOG_LEVEL ?? 'silent') });
  connection = await Connection.connect({ address: server.address });
  client = new Client({ connection });
});

test.after.always(async () => {
  await connection?.close();
  await server?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** A connector workflow as a create starts it (no worker needed: the memo is the frontend's to answer). */
async function startedWith(memo: Record<string, unknown>): Promise<string> {
  const id = randomUUID();
  await client.workflow.start('connectorWorkflow', { workflowId: connectorWorkflowId(id), taskQueue: 'nobody-polls', args: [], memo });
  return id;
}

/** The client, with the handles it is asked for counted. */
function counted(): { client: Client; asked: string[] } {
  const asked: string[] = [];
  const workflow = new Proxy(client.workflow, {
    get(target, name, receiver) {
      if (name !== 'getHandle') return Reflect.get(target, name, receiver);
      return (workflowId: string) => {
        asked.push(workflowId);
        return target.getHandle(workflowId);
      };
    },
  });
  return { client: new Proxy(client, { get: (target, name, receiver) => (name === 'workflow' ? workflow : Reflect.get(target, name, receiver)) }), asked };
}

test('a connector this process created is answered without asking Temporal; another is asked once, then kept', async (t) => {
  const mine = await startedWith(ownerMemo('key:alice', 'Alice'));
  const theirs = await startedWith(ownerMemo('key:bob', 'Bob'));
  const spy = counted();
  const owners = workflowOwners(spy.client);
  owners.started!(mine, { owner: 'key:alice', name: 'Alice' });
  t.deepEqual(await owners.ownerOf(mine), { owner: 'key:alice', name: 'Alice' });
  t.deepEqual(spy.asked, [], 'the created connector asked nothing');
  t.deepEqual(await owners.ownerOf(theirs), { owner: 'key:bob', name: 'Bob' });
  t.deepEqual(await owners.ownerOf(theirs), { owner: 'key:bob', name: 'Bob' });
  t.deepEqual(spy.asked, [connectorWorkflowId(theirs)], 'another process\'s connector: asked once');
});

test('a workflow without the service\'s memo is nobody\'s, and one that does not exist has no owner', async (t) => {
  const owners = workflowOwners(client);
  t.is(await owners.ownerOf(await startedWith({})), null);
  t.is(await owners.ownerOf(randomUUID()), null);
});

test('what is kept is bounded: the connector asked about the longest ago goes first', async (t) => {
  const [first, second] = [await startedWith(ownerMemo('key:a', null)), await startedWith(ownerMemo('key:b', null))];
  const spy = counted();
  const owners = workflowOwners(spy.client, 1);
  owners.started!(first, { owner: 'key:a', name: null });
  owners.started!(second, { owner: 'key:b', name: null });
  t.deepEqual(await owners.ownerOf(first), { owner: 'key:a', name: null }, 'asked again, from the memo');
  t.deepEqual(spy.asked, [connectorWorkflowId(first)]);
});
