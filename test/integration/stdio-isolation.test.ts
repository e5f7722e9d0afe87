// Two owners' stdio connectors on the local runtime, with callers authenticated, end to end
// through the API and the proxy: each server runs as a uid of its own and cannot read the other's
// token in /proc/<pid>/environ, the worker's environment (this process: the embedded stack runs
// here) or the key file under DATA_DIR, while the tools of both still answer through the proxy.
// It needs root (or the capabilities); without, it says so and skips.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { parseUidRange } from '../../config/config';
import { eventually, startTestStack, type TestStack } from '../helpers/test-stack';
import { pidsWithEnv } from '../helpers/process-env';
import { uidSwitchingAvailable } from '../helpers/uid-isolation-gate';

const PRYING = fileURLToPath(new URL('../fixtures/prying-stdio-server.mjs', import.meta.url));
const RANGE = '232000-232999';
const KEYS = { alice: `alice-${randomUUID()}`, bob: `bob-${randomUUID()}` };
const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

type Pried = Array<{ path: string; outcome: string }>;
interface Identity { uid: number; pid: number; env: Record<string, string> }

let stack: TestStack;

async function connectAs(owner: keyof typeof KEYS, token: string) {
  const auth = { authorization: `Bearer ${KEYS[owner]}` };
  const created = await stack.api('POST', '/api/v1/connectors', { url: 'mcp+stdio://prying' }, auth);
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${created.text}`);
  const connected = await stack.api('POST', `/api/v1/connectors/${created.body.id}/connect`, { access_token: token }, auth);
  if (connected.status !== 200) throw new Error(`connect answered ${connected.status}: ${connected.text}`);
  const client = new Client({ name: `isolation-${owner}`, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(created.body.mcp_url), { requestInit: { headers: auth } }));
  return { id: created.body.id as string, client, auth };
}

async function call<T>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as { content: Array<{ text: string }> };
  return JSON.parse(result.content[0]!.text) as T;
}

if (uidSwitchingAvailable('test/integration/stdio-isolation.test.ts', `two owners' stdio servers cannot read each other or the service`, parseUidRange(RANGE))) {
  test.before(async () => {
    stack = await startTestStack({
      // No CONNECTOR__ENCRYPTION_KEY: the stack generates its key file under DATA_DIR, the file to pry at.
      CONNECTOR__API_KEYS: JSON.stringify([{ subject: 'alice', sha256: sha256Hex(KEYS.alice) }, { subject: 'bob', sha256: sha256Hex(KEYS.bob) }]),
      CONNECTOR__STDIO_UID_RANGE: RANGE,
      CONNECTOR__PRESETS: JSON.stringify([{
        url: 'mcp+stdio://prying', metadata: { name: 'Prying', description: 'reads what it is pointed at' },
        stdio: { image: 'unused-locally', command: [process.execPath, PRYING], env: { PRESET_MARKER: 'prying-e2e' }, access_token_env_name: 'SERVER_TOKEN' },
      }]),
    });
  });
  test.after.always(async () => {
    await stack?.stop();
  });

  test('two owners\' stdio servers: each its own uid, neither reads the other\'s token, the worker\'s environment or the key file; both serve through the proxy', async (t) => {
    const keyFile = path.join(stack.dataDir, 'encryption.key');
    t.true(existsSync(keyFile), 'the stack keeps its generated key there');
    const [tokenA, tokenB] = [`token-a-${randomUUID()}`, `token-b-${randomUUID()}`];
    const alice = await connectAs('alice', tokenA);
    const bob = await connectAs('bob', tokenB);
    const [idA, idB] = await Promise.all([call<Identity>(alice.client, 'identity'), call<Identity>(bob.client, 'identity')]);
    t.is(idA.env.SERVER_TOKEN, tokenA, 'alice\'s server holds her token');
    t.is(idB.env.SERVER_TOKEN, tokenB);
    t.not(idA.uid, idB.uid);
    for (const uid of [idA.uid, idB.uid]) t.true(uid >= 232_000 && uid <= 232_999, `uid ${uid} from CONNECTOR__STDIO_UID_RANGE`);
    // What the servers would be after is really there: the refusals are the uids' doing.
    t.true(readFileSync(`/proc/${idB.pid}/environ`, 'utf8').includes(tokenB));
    t.true(readFileSync(`/proc/${process.pid}/environ`, 'utf8').includes('PATH='));

    const worker = `/proc/${process.pid}/environ`;
    const fromA = await call<Pried>(alice.client, 'pry', { paths: [`/proc/${idB.pid}/environ`, worker, keyFile, PRYING] });
    const fromB = await call<Pried>(bob.client, 'pry', { paths: [`/proc/${idA.pid}/environ`, worker, keyFile, PRYING] });
    t.deepEqual(fromA.map((p) => p.outcome), ['EACCES', 'EACCES', 'EACCES', 'read'], JSON.stringify(fromA));
    t.deepEqual(fromB.map((p) => p.outcome), ['EACCES', 'EACCES', 'EACCES', 'read'], JSON.stringify(fromB));

    // Both still answer through the proxy.
    t.is((await call<Identity>(alice.client, 'identity')).pid, idA.pid);
    t.is((await call<Identity>(bob.client, 'identity')).pid, idB.pid);
    await Promise.all([alice.client.close(), bob.client.close()]);
    for (const { id, auth } of [alice, bob]) t.is((await stack.api('DELETE', `/api/v1/connectors/${id}`, undefined, auth)).status, 202);
    await eventually(async () => (pidsWithEnv('PRESET_MARKER=prying-e2e').length === 0 ? true : undefined), 20_000, 'no server after delete');
  });
}
