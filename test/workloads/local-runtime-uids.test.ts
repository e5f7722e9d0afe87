// The local runtime as it runs with callers authenticated, as root (here and in CI): each stdio
// server a uid of its own in the sandbox (bubblewrap's namespaces, setpriv's no-new-privileges).
// The server is a hostile one with a shell: it cannot read another's environment, the worker's or
// the key under DATA_DIR; it reaches nothing on the host's loopback (another server's gateway, a
// listener of the test's); it can write nowhere another uid looks; and what it leaves behind
// (a process outside its group, a setuid copy of cat) is gone before its uid serves another server.
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
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
import { processesWithEnv } from './support/processes';
import { sandboxAvailable } from './support/sandbox-gate';

const log = createLogger('test-local-uids', process.env.LOG_LEVEL ?? 'silent');
const HOSTILE = fileURLToPath(new URL('../fixtures/hostile-stdio-server.mjs', import.meta.url));
const uidRange = parseUidRange('231000-231999');
const MARKER = 'SANDBOX_TEST_MARKER';

type Read = Array<{ path: string; outcome: string; text?: string }>;
type Reached = Array<{ host: string; port: number; outcome: string }>;
interface Shell { code: number; stdout: string; stderr: string }
interface Identity {
  uid: number; gid: number; groups: number[]; pid: number; cwd: string; tmpdir: string; env: Record<string, string>;
  noNewPrivs: string; capEff: string; capBnd: string;
}

async function connect({ target, gatewaySecret }: StartedRuntimeWorkload): Promise<Client> {
  const client = new Client({ name: 'sandbox-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers: { [GATEWAY_SECRET_HEADER]: gatewaySecret } } }));
  return client;
}

async function call<T>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as { content: Array<{ text: string }> };
  return JSON.parse(result.content[0]!.text) as T;
}

const hostile = (marker = randomUUID()): StdioConfig => ({
  image: 'unused-locally:1', command: [process.execPath, HOSTILE], env: { PRESET_SETTING: 'on', [MARKER]: marker }, access_token_env_name: 'SERVER_TOKEN',
});

/** The server process itself (not bwrap around it): the one holding the marker and running as `uid`. */
function serverPid(marker: string, uid: number): number {
  const pid = processesWithEnv(MARKER, marker).find((p) => statSync(`/proc/${p}`).uid === uid);
  if (pid === undefined) throw new Error(`no server process of uid ${uid}`);
  return pid;
}

/** Every path under `dir` owned by `uid` (links not followed). */
function ownedBy(dir: string, uid: number): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(d, name);
      const stat = lstatSync(path, { throwIfNoEntry: false });
      if (!stat) continue;
      if (stat.uid === uid) found.push(path);
      if (stat.isDirectory()) walk(path);
    }
  };
  walk(dir);
  return found;
}

if (await sandboxAvailable('test/workloads/local-runtime-uids.test.ts', 'stdio servers as their own uids, in the sandbox', uidRange)) {
  const runtime = new LocalRuntime({ logger: log, serverStderr: 'ignore', uidRange, sandbox: true });
  let listener: Server;
  test.before(async () => {
    // A service of the test's on the host's loopback, as the embedded Temporal and FerretDB are.
    listener = createServer((socket) => socket.on('error', () => undefined).end('host loopback\n'));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  });
  test.after.always(async () => {
    await runtime.close();
    listener?.close();
  });

  // A DATA_DIR as an older version left it (0755, the key 0644): the stack closes both at start.
  const dataDir = join(mkdtempSync(join(tmpdir(), 'uid-test-data-')), 'data');
  mkdirSync(dataDir, { mode: 0o755 });
  chmodSync(dataDir, 0o755);
  writeFileSync(join(dataDir, 'encryption.key'), `${'ab'.repeat(32)}\n`, { mode: 0o644 });
  chmodSync(join(dataDir, 'encryption.key'), 0o644);
  encryptionKey(loadConfig({ DATA_DIR: dataDir }), log);
  const keyFile = join(dataDir, 'encryption.key');

  test('two servers, each its own uid in the sandbox: no privileges, neither reads the other\'s environ, the worker\'s or the key file; both still serve', async (t) => {
    t.is(statSync(dataDir).mode & 0o777, 0o700, 'DATA_DIR closed at start');
    const [a, b] = [randomUUID(), randomUUID()];
    const [tokenA, tokenB] = [`token-a-${randomUUID()}`, `token-b-${randomUUID()}`];
    const [markerA, markerB] = [randomUUID(), randomUUID()];
    const [startedA, startedB] = await Promise.all([
      runtime.start({ connectorId: a, token: tokenA, stdio: hostile(markerA) }, { readinessTimeoutMs: 60_000 }),
      runtime.start({ connectorId: b, token: tokenB, stdio: hostile(markerB) }, { readinessTimeoutMs: 60_000 }),
    ]);
    const [clientA, clientB] = await Promise.all([connect(startedA), connect(startedB)]);
    const [idA, idB] = await Promise.all([call<Identity>(clientA, 'identity'), call<Identity>(clientB, 'identity')]);

    for (const { id, connectorId, token } of [{ id: idA, connectorId: a, token: tokenA }, { id: idB, connectorId: b, token: tokenB }]) {
      t.is(runtime.uid(connectorId), id.uid);
      t.true(id.uid >= uidRange.first && id.uid <= uidRange.last, `uid ${id.uid} from the range`);
      t.is(id.gid, id.uid, 'a gid of its own too');
      t.deepEqual(id.groups, [id.gid], 'none of the service\'s supplementary groups');
      t.is(id.noNewPrivs, '1', 'no new privileges: a setuid binary runs with its caller\'s rights');
      t.is(Number.parseInt(id.capEff, 16), 0, 'no capability');
      t.is(Number.parseInt(id.capBnd, 16), 0, 'none to gain back either');
      t.is(id.cwd, '/tmp');
      t.is(id.env.HOME, '/tmp', 'HOME is its scratch folder, mounted as its /tmp');
      t.deepEqual(Object.keys(id.env).filter((k) => k !== MARKER).sort(), ['HOME', 'PATH', 'PRESET_SETTING', 'PWD', 'SERVER_TOKEN', 'TMPDIR'], 'nothing of the worker\'s environment (PWD: the sandbox\'s chdir)');
      t.is(id.env.SERVER_TOKEN, token);
      t.true(id.pid < 10, `pid ${id.pid}: a pid namespace of its own`);
    }
    t.not(idA.uid, idB.uid, 'no two live servers share a uid');
    const pidB = serverPid(markerB, idB.uid);
    // The files really hold what a server would be after: the refusals below are the sandbox's doing.
    t.true(readFileSync(`/proc/${pidB}/environ`, 'utf8').includes(tokenB));

    const worker = `/proc/${process.pid}/environ`;
    const fromA = await call<Read>(clientA, 'read', { paths: [`/proc/${pidB}/environ`, worker, keyFile, HOSTILE] });
    // Not there at all (another pid namespace; DATA_DIR under the host's /tmp, which is not its /tmp), or closed to it.
    t.deepEqual(fromA.map((p) => (p.outcome === 'read' ? 'read' : 'refused')), ['refused', 'refused', 'refused', 'read'], JSON.stringify(fromA.map((p) => [p.path, p.outcome])));
    const scratchA = runtime.scratchDir(a)!;
    const fromB = await call<Read>(clientB, 'read', { paths: [join(scratchA, 'x'), '/tmp/../etc/hostname'] });
    t.is(fromB[0]!.outcome, 'ENOENT', 'another server\'s scratch folder is not even there');

    const sh = await call<Shell>(clientA, 'shell', { command: 'ps -e -o pid=,comm= 2>/dev/null || ls /proc | grep -c "^[0-9]"' });
    t.false(sh.stdout.includes(String(pidB)), `it sees its own processes only: ${sh.stdout}`);
    t.is((await call<Identity>(clientB, 'identity')).pid, idB.pid, 'both still answer');
    await Promise.all([clientA.close(), clientB.close()]);
    await Promise.all([runtime.remove(a), runtime.remove(b)]);
  });

  test('the network: nothing on the host\'s loopback (a test\'s listener, another server\'s gateway), no address but its own loopback', async (t) => {
    const [a, b] = [randomUUID(), randomUUID()];
    const [startedA, startedB] = await Promise.all([
      runtime.start({ connectorId: a, token: null, stdio: hostile() }, { readinessTimeoutMs: 60_000 }),
      runtime.start({ connectorId: b, token: null, stdio: hostile() }, { readinessTimeoutMs: 60_000 }),
    ]);
    const client = await connect(startedA);
    const port = (address: string) => Number(new URL(address).port);
    const listenerPort = (listener.address() as { port: number }).port;
    const targets = [
      { host: '127.0.0.1', port: listenerPort }, { host: '::1', port: listenerPort },
      { host: '127.0.0.1', port: port(startedB.target) }, { host: '127.0.0.1', port: port(startedA.target) },
    ];
    const reached = await call<Reached>(client, 'connect', { targets });
    t.deepEqual(reached.map((r) => r.outcome), ['ECONNREFUSED', 'ECONNREFUSED', 'ECONNREFUSED', 'ECONNREFUSED'], JSON.stringify(reached));
    const routes = await call<Shell>(client, 'shell', { command: 'cat /proc/net/route; cat /proc/net/dev' });
    t.notRegex(routes.stdout, /eth|tap|veth/, `its own loopback only: ${routes.stdout}`);
    await client.close();
    await Promise.all([runtime.remove(a), runtime.remove(b)]);
  });

  test('writes land in its own /tmp only: the root file system is read-only, and /tmp is its scratch folder', async (t) => {
    const connectorId = randomUUID();
    const client = await connect(await runtime.start({ connectorId, token: null, stdio: hostile() }, { readinessTimeoutMs: 60_000 }));
    const sh = await call<Shell>(client, 'shell', { command: 'for d in /tmp /var/tmp /dev/shm /run/lock /etc "$PWD"; do (echo x > "$d/w" && echo "$d writable") 2>/dev/null || echo "$d refused"; done' });
    t.is(sh.stdout, '/tmp writable\n/var/tmp writable\n/dev/shm writable\n/run/lock refused\n/etc refused\n/tmp writable\n');
    t.true(existsSync(join(runtime.scratchDir(connectorId)!, 'w')), 'its /tmp is its scratch folder on the host');
    t.false(existsSync('/var/tmp/w'), 'its /var/tmp is a tmpfs of its own');
    await client.close();
    await runtime.remove(connectorId);
  });

  test('remove ends every process of the uid (one escaped from the group too) and removes its scratch folder', async (t) => {
    const connectorId = randomUUID();
    const client = await connect(await runtime.start({ connectorId, token: null, stdio: hostile() }, { readinessTimeoutMs: 60_000 }));
    const uid = runtime.uid(connectorId)!;
    const scratch = runtime.scratchDir(connectorId)!;
    const left = await call<{ daemon: number; file: string }>(client, 'leave-behind');
    t.true(existsSync(join(scratch, left.file.replace('/tmp/', ''))), 'its /tmp file is in its scratch folder');
    t.true(uidsInUse().has(uid));
    await client.close();
    await runtime.remove(connectorId);
    t.false(uidsInUse().has(uid), 'no process of the uid is left');
    t.false(existsSync(scratch), 'nor its scratch folder');
  });

  test('a server whose script is out of reach of other uids is refused, naming the directory that closes it', async (t) => {
    const closed = mkdtempSync(join(tmpdir(), 'uid-test-closed-'));
    const script = join(closed, 'server.mjs');
    writeFileSync(script, readFileSync(HOSTILE));
    const stdio = { image: 'unused-locally:1', command: [process.execPath, script] };
    const error = await t.throwsAsync(runtime.start({ connectorId: randomUUID(), stdio, token: null }, { readinessTimeoutMs: 60_000 }), {
      instanceOf: WorkloadSpecError,
    });
    t.is(error!.message, `${script} is out of reach of the stdio servers' own uids: ${closed} is closed to other users (mode 700); install it where every user may read it`);
  });

  /** Issue 37's finding: X makes /tmp/d2 world-writable, Y plants a setuid cat there, Y goes, Z gets Y's uid. */
  async function takeBack(t: import('ava').ExecutionContext, sandbox: boolean) {
    // Two uids: after Y's release, Z can only get Y's. Outside this file's range and the default
    // one (which the other tests' servers draw from at random, machine-wide claims): one of them
    // holding either would leave Z none.
    const first = sandbox ? 271_500 : 271_510;
    const pair = new LocalRuntime({ logger: log, serverStderr: 'ignore', uidRange: { first, last: first + 1 }, sandbox });
    t.teardown(() => pair.close());
    const [x, y, z] = [randomUUID(), randomUUID(), randomUUID()];
    const clientX = await connect(await pair.start({ connectorId: x, token: null, stdio: hostile() }, { readinessTimeoutMs: 60_000 }));
    const clientY = await connect(await pair.start({ connectorId: y, token: null, stdio: hostile() }, { readinessTimeoutMs: 60_000 }));
    const uidY = pair.uid(y)!;
    await call<Shell>(clientX, 'shell', { command: 'mkdir -p /tmp/d2 && chmod 777 /tmp/d2' });
    const planted = await call<Shell>(clientY, 'shell', { command: 'mkdir -p /tmp/d2; cp /bin/cat /tmp/d2/cat && chmod 6755 /tmp/d2/cat && stat -c "%u %a" /tmp/d2/cat' });
    t.is(planted.stdout.trim(), `${uidY} 6755`, 'Y planted its setuid cat');
    await clientY.close();
    await pair.remove(y);
    t.deepEqual(ownedBy(tmpdir(), uidY), [], `nothing of Y's uid is left in ${tmpdir()}, at any depth`);

    const victim = `VICTIM_TOKEN=${randomUUID()}`;
    const markerZ = randomUUID();
    await pair.start({ connectorId: z, token: victim, stdio: hostile(markerZ) }, { readinessTimeoutMs: 60_000 });
    t.is(pair.uid(z), uidY, 'Z runs as the uid Y had');
    const pidZ = serverPid(markerZ, uidY);
    const tried = await call<Shell>(clientX, 'shell', { command: `ls -ln /tmp/d2; /tmp/d2/cat /proc/${pidZ}/environ; cat /proc/${pidZ}/environ` });
    t.false(`${tried.stdout}${tried.stderr}`.includes(victim), `X read nothing of Z: ${JSON.stringify(tried)}`);
    await clientX.close();
  }

  test('a released uid cannot be taken back: X opens a world-writable folder, Y plants a setuid cat, Y goes, Z gets its uid; X reads nothing of Z', async (t) => {
    await takeBack(t, true);
  });

  test('outside the sandbox too (uids only): the leftover scan finds the setuid cat in X\'s folder, and servers run with no new privileges', async (t) => {
    await takeBack(t, false);
    const bare = new LocalRuntime({ logger: log, serverStderr: 'ignore', uidRange: { first: 271_520, last: 271_520 }, sandbox: false });
    t.teardown(() => bare.close());
    const connectorId = randomUUID();
    const client = await connect(await bare.start({ connectorId, token: null, stdio: hostile() }, { readinessTimeoutMs: 60_000 }));
    const id = await call<Identity>(client, 'identity');
    t.like(id, { uid: 271_520, noNewPrivs: '1' });
    t.is(Number.parseInt(id.capBnd, 16), 0);
    await client.close();
  });
}
