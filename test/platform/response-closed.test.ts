import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { onceClosed } from '../../platform/response-closed';
import { abandonedResponse } from '../helpers/abandoned-response';

test('onceClosed runs for a response that closed before it was asked, once, after the caller goes on', async (t) => {
  const res = await abandonedResponse();
  let runs = 0;
  onceClosed(res, () => runs++);
  t.is(runs, 0, 'not while the caller is still setting up');
  await new Promise((resolve) => process.nextTick(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  t.is(runs, 1);
});

test('onceClosed waits for an open response to close, and runs once', async (t) => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const arrived = new Promise<ServerResponse>((resolve) => server.once('request', (_req, res: ServerResponse) => resolve(res)));
  const client = request({ port: (server.address() as AddressInfo).port, host: '127.0.0.1' });
  client.on('error', () => undefined);
  client.end();
  const res = await arrived;
  let runs = 0;
  onceClosed(res, () => runs++);
  await new Promise((resolve) => setImmediate(resolve));
  t.is(runs, 0, 'still open');
  res.end('done');
  await new Promise((resolve) => res.once('close', resolve));
  t.is(runs, 1);
});
