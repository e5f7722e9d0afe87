// The local runtime with a uid range, as root (here and in CI): each stdio server runs as a uid of
// its own and cannot read another's environment, the worker's, or the key under DATA_DIR; what a
// server leaves behind (a process outside its group, a file in /tmp) goes when it is removed.
// Without root (or the capabilities) the tests cannot run, and say so.
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadConfig, parseUidRange } from '../../config/config';
import { GATEWAY_SECRET_HEADER } from '../../contract/gateway-secret';
import { createLogger } from '../../platform/logger';
import type { StdioConfig } from '../../contract/schemas';
import { WorkloadSpecError } from '../../activities/workloads/errors';
import { LocalRuntime } from '../../activities/workloads/local-runtime';
import type { StartedRuntimeWorkload } from '../../activities/workloads/runtime';
import { uidsInUse } from '../../activities/workloads/uid-processes';
import { encryptionKey } from '../../service/services';
import { uidSwitchingAvailable } from '../helpers/uid-isolation-gate';

const log = createLogger('test-local-uids', process.env.LOG_LEVEL ?? 'silent');
const PRYING = fileURLToPath(new URL('../fixtures/prying-stdio-server.mjs', import.meta.url));
const uidRange = parseUidRange('231000-231999');

type Pried = Array<{ path: string; outcome: string }>;
interface Identity {
  uid: number; gid: number; groups: number[]; pid: number; cwd: string; env: Record<string, string>;
  home: { uid: number; gid: number; mode: number };
}

async function connect({ target, gatewaySecret }: StartedRuntimeWorkload): Promise<Client> {
  const client = new Client({ name: 'uid-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers: { [GATEWAY_SECRET_HEADER]: gatewaySecret } } }));
  return client;
}

async function call<T>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as { content: Array<{ text: string }> };
  return JSON.parse(result.content[0]!.text) as T;
}

const prying: StdioConfig = {
  image: 'unused-locally:1', command: [process.execPath, PRYING], env: { PRESET_SETTING: 'on' }, access_token_env_name: 'SERVER_TOKEN',
};

if (uidSwitchingAvailable('test/workloads/local-runtime-uids.test.ts', `stdio servers as their own uids`, uidRange)) {
  const runtime = new LocalRuntime({ logger: log, serverStderr: 'ignore', uidRange });
  test.after.always(() => runtime.close());

  // A DATA_DIR as an older version left it (0755, the key 0644): the stack closes both at start.
  const dataDir = join(mkdtempSync(join(tmpdir(), 'uid-test-data-')), 'data');
  mkdirSync(dataDir, { mode: 0o755 });
  chmodSync(dataDir, 0o755);
  writeFileSync(join(dataDir, 'encryption.key'), `${'ab'.repeat(32)}\n`, { mode: 0o644 });
  chmodSync(join(dataDir, 'encryption.key'), 0o644);
  encryptionKey(loadConfig({ DATA_DIR: dataDir }), log);
  const keyFile = join(dataDir, 'encryption.key');

  test('two servers, each its own uid: neither reads the other\'s environ, the worker\'s, or the key file; both still serve', async (t) => {
    t.is(statSync(dataDir).mode & 0o777, 0o700, 'DATA_DIR closed at start');
    t.is(statSync(keyFile).mode & 0o777, 0o600, 'the key file the owner\'s alone');
    const [a, b] = [randomUUID(), randomUUID()];
    const [tokenA, tokenB] = [`token-a-${randomUUID()}`, `token-b-${randomUUID()}`];
    const spec = (connectorId: string, token: string) => ({ connectorId, token, stdio: prying });
    const [startedA, startedB] = await Promise.all([
      runtime.start(spec(a, tokenA), { readinessTimeoutMs: 60_000 }),
      runtime.start(spec(b, tokenB), { readinessTimeoutMs: 60_000 }),
    ]);
    const [clientA, clientB] = await Promise.all([connect(startedA), connect(startedB)]);
    const [idA, idB] = await Promise.all([call<Identity>(clientA, 'identity'), call<Identity>(clientB, 'identity')]);

    for (const { id, connectorId, token } of [{ id: idA, connectorId: a, token: tokenA }, { id: idB, connectorId: b, token: tokenB }]) {
      t.is(runtime.uid(connectorId), id.uid);
      t.true(id.uid >= uidRange.first && id.uid <= uidRange.last, `uid ${id.uid} from the range`);
      t.is(id.gid, id.uid, 'a gid of its own too');
      t.deepEqual(id.groups, [id.gid], 'none of the service\'s supplementary groups');
      t.is(runtime.scratchDir(connectorId), id.cwd);
      t.is(id.env.HOME, id.cwd, 'HOME is its scratch folder');
      t.deepEqual(id.home, { uid: id.uid, gid: id.gid, mode: 0o700 }, 'its own, closed to every other uid');
      t.deepEqual(Object.keys(id.env).sort(), ['HOME', 'PATH', 'PRESET_SETTING', 'SERVER_TOKEN', 'TMPDIR'], 'nothing of the worker\'s environment');
      t.is(id.env.SERVER_TOKEN, token);
    }
    t.not(idA.uid, idB.uid, 'no two live servers share a uid');
    // The files really hold what a server would be after: the refusals below are the uids' doing.
    t.true(readFileSync(`/proc/${idB.pid}/environ`, 'utf8').includes(tokenB));

    const worker = `/proc/${process.pid}/environ`;
    const fromA = await call<Pried>(clientA, 'pry', { paths: [`/proc/${idB.pid}/environ`, worker, keyFile, PRYING] });
    const fromB = await call<Pried>(clientB, 'pry', { paths: [`/proc/${idA.pid}/environ`, worker, keyFile, join(idA.cwd, 'x')] });
    t.deepEqual(fromA.map((p) => p.outcome), ['EACCES', 'EACCES', 'EACCES', 'read'], JSON.stringify(fromA));
    t.deepEqual(fromB.map((p) => p.outcome), ['EACCES', 'EACCES', 'EACCES', 'EACCES'], JSON.stringify(fromB));

    // Both still answer.
    t.is((await call<Identity>(clientA, 'identity')).pid, idA.pid);
    t.is((await call<Identity>(clientB, 'identity')).pid, idB.pid);
    await Promise.all([clientA.close(), clientB.close()]);
    await Promise.all([runtime.remove(a), runtime.remove(b)]);
  });

  test('remove ends every process of the uid (one escaped from the group too), removes its files in /tmp and its scratch folder', async (t) => {
    const connectorId = randomUUID();
    const started = await runtime.start({ connectorId, token: null, stdio: prying }, { readinessTimeoutMs: 60_000 });
    const client = await connect(started);
    const uid = runtime.uid(connectorId)!;
    const scratch = runtime.scratchDir(connectorId)!;
    const left = await call<{ daemon: number; file: string }>(client, 'leave-behind');
    t.true(existsSync(left.file));
    t.true(existsSync(`/proc/${left.daemon}`), 'the escaped process runs');
    await client.close();
    await runtime.remove(connectorId);
    t.false(uidsInUse().has(uid), 'no process of the uid is left');
    t.false(existsSync(left.file), 'nor its file in /tmp');
    t.false(existsSync(scratch), 'nor its scratch folder');
  });

  test('a server whose script is out of reach of other uids is refused, naming the directory that closes it', async (t) => {
    const closed = mkdtempSync(join(tmpdir(), 'uid-test-closed-'));
    const script = join(closed, 'server.mjs');
    writeFileSync(script, readFileSync(PRYING));
    const stdio = { image: 'unused-locally:1', command: [process.execPath, script] };
    const error = await t.throwsAsync(runtime.start({ connectorId: randomUUID(), stdio, token: null }, { readinessTimeoutMs: 60_000 }), {
      instanceOf: WorkloadSpecError,
    });
    t.is(error!.message, `${script} is out of reach of the stdio servers' own uids: ${closed} is closed to other users (mode 700); install it where every user may read it`);
  });
}
