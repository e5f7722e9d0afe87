// Which process owns a listening port, read from /proc (Linux, where CI runs).
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { listensOn } from '../../stack/servers/listener-owner';

test('the listener of this process is its own, not another process’s', async (t) => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
  t.teardown(() => {
    other.kill();
    server.close();
  });
  t.is(await listensOn(process.pid, port), true);
  t.is(await listensOn(other.pid!, port), false);
  t.is(await listensOn(process.pid, port === 65535 ? 1 : port + 1), false, 'another port');
});

test('a process that has exited listens nowhere (it lost the race for the port), not "cannot tell"', async (t) => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const gone = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => gone.once('exit', resolve));
  t.is(await listensOn(gone.pid!, (server.address() as AddressInfo).port), false);
});
