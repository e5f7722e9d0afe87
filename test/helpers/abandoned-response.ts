// A real server response whose client has already left: the request came in, and the client
// closed its connection before the handler went on (as one does while the proxy authenticates
// the caller, looks up the route or reads the body).
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function abandonedResponse(): Promise<ServerResponse> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const arrived = new Promise<ServerResponse>((resolve) => server.once('request', (_req, res: ServerResponse) => resolve(res)));
    const client = request({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', method: 'POST', headers: { 'content-length': '10' } });
    client.on('error', () => undefined);
    client.write('{"a":');
    const res = await arrived;
    const closed = new Promise((resolve) => res.once('close', resolve));
    client.destroy();
    await closed;
    return res;
  } finally {
    server.close();
  }
}
