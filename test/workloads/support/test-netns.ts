// A network namespace this test makes, joined to the host by a veth pair, with a TCP listener on
// a private address inside (10.213.<n>.2): the "private network" a stdio server may or may not
// reach. Traffic to it stays on this machine, in namespaces the test created. Needs root.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export interface TestNetns {
  /** 10.213.<n>.2: the listener's address. */
  address: string;
  /** 10.213.<n>.0/24 */
  network: string;
  port: number;
  close(): Promise<void>;
}

// Listens on every address of its namespace; answers "private network <n>" and hangs up.
const LISTENER = `const s = require('node:net').createServer((c) => { c.on('error', () => {}); c.end('private network\\n'); });
s.listen(0, '0.0.0.0', () => console.log(s.address().port));`;

export async function openTestNetns(n: number): Promise<TestNetns> {
  const holder = spawn('unshare', ['--net', '--', process.execPath, '-e', LISTENER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const closed = () => kill(holder);
  try {
    const [chunk] = (await once(holder.stdout!, 'data')) as [Buffer];
    const port = Number(chunk.toString().trim());
    const [host, inside] = [`crh${process.pid % 10_000}n${n}`, `crn${process.pid % 10_000}n${n}`];
    const ns = ['nsenter', `--net=/proc/${holder.pid}/ns/net`, '--'];
    const run = (argv: string[]) => exec(argv[0]!, argv.slice(1));
    await run(['ip', 'link', 'add', host, 'type', 'veth', 'peer', 'name', inside, 'netns', String(holder.pid)]);
    await run(['ip', 'addr', 'add', `10.213.${n}.1/24`, 'dev', host]);
    await run(['ip', 'link', 'set', host, 'up']);
    await run([...ns, 'ip', 'addr', 'add', `10.213.${n}.2/24`, 'dev', inside]);
    await run([...ns, 'ip', 'link', 'set', inside, 'up']);
    await run([...ns, 'ip', 'link', 'set', 'lo', 'up']);
    // The veth pair goes with the namespace when its only process ends.
    return { address: `10.213.${n}.2`, network: `10.213.${n}.0/24`, port, close: closed };
  } catch (error) {
    await closed();
    throw error;
  }
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGKILL');
  await once(child, 'exit');
}
