// A STAND-IN for the Kubernetes API server's pod attach endpoint: no cluster can run containers
// here, so this local server speaks the same wire protocol (a WebSocket upgrade with the
// channel.k8s.io subprotocols; binary frames whose first byte is the channel: 0 stdin, 1 stdout,
// 2 stderr, 3 status, 255 close) and "attaches" to a local process it starts per connection.
// Only the WebSocket subset that the client library's `ws` sends is handled: unfragmented frames.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { KubeConfig } from '@kubernetes/client-node';

const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const OPCODE = { text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const;

export interface AttachStandIn {
  port: number;
  /** Paths (with query) of the attach requests received, in order. */
  requests: string[];
  /** The processes started for attach connections. */
  processes: ChildProcess[];
  kubeConfig(): KubeConfig;
  close(): Promise<void>;
}

/** `command` starts the "container" process for each attach; `refuse` answers 403 to a container. */
export async function startAttachStandIn(command: string[], refuse?: string): Promise<AttachStandIn> {
  const requests: string[] = [];
  const processes: ChildProcess[] = [];
  const server: Server = createServer((_req, res) => res.writeHead(404).end());
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    requests.push(req.url ?? '');
    const container = new URL(req.url ?? '/', 'http://stand-in.invalid').searchParams.get('container');
    if (container === refuse) {
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const protocol = chooseProtocol(req.headers['sec-websocket-protocol']);
    const accept = createHash('sha1').update(`${req.headers['sec-websocket-key']}${WS_GUID}`).digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`
      + `Sec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: ${protocol}\r\n\r\n`);
    processes.push(bridge(socket, command));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    requests,
    processes,
    kubeConfig: () => standInKubeConfig(port),
    close: async () => {
      for (const child of processes) child.kill('SIGKILL');
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function chooseProtocol(offered: string | string[] | undefined): string {
  const list = String(offered ?? '').split(',').map((p) => p.trim());
  return list.includes('v5.channel.k8s.io') ? 'v5.channel.k8s.io' : 'v4.channel.k8s.io';
}

/** Wires one attach connection to a fresh process: stdin in, stdout/stderr out, status at exit. */
function bridge(socket: Duplex, command: string[]): ChildProcess {
  const [program, ...args] = command;
  const child = spawn(program!, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.on('error', () => undefined);
  child.stdout.on('data', (chunk: Buffer) => socket.write(frame(OPCODE.binary, Buffer.concat([Buffer.of(1), chunk]))));
  child.stderr.on('data', (chunk: Buffer) => socket.write(frame(OPCODE.binary, Buffer.concat([Buffer.of(2), chunk]))));
  child.on('exit', (code) => {
    const status = code === 0 ? { status: 'Success' }
      : { status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: String(code) }] } };
    socket.write(frame(OPCODE.binary, Buffer.concat([Buffer.of(3), Buffer.from(JSON.stringify(status))])));
    socket.end(frame(OPCODE.close, Buffer.from([0x03, 0xe8])));
  });
  // Like a container, the process outlives the attach connection; close() of the stand-in ends it.
  socket.on('error', () => undefined);
  readFrames(socket, (opcode, payload) => {
    if (opcode === OPCODE.binary && payload[0] === 0) child.stdin.write(payload.subarray(1));
    else if (opcode === OPCODE.binary && payload[0] === 255 && payload[1] === 0) child.stdin.end();
    else if (opcode === OPCODE.ping) socket.write(frame(OPCODE.pong, payload));
    else if (opcode === OPCODE.close) socket.end(frame(OPCODE.close, payload.subarray(0, 2)));
  });
  return child;
}

/** Parses masked client frames (RFC 6455 §5.2) as they arrive. */
function readFrames(socket: Duplex, onFrame: (opcode: number, payload: Buffer) => void): void {
  let buffered = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    for (;;) {
      const parsed = parseFrame(buffered);
      if (!parsed) return;
      buffered = buffered.subarray(parsed.length);
      onFrame(parsed.opcode, parsed.payload);
    }
  });
}

function parseFrame(data: Buffer): { opcode: number; payload: Buffer; length: number } | undefined {
  if (data.length < 2) return undefined;
  const opcode = data[0]! & 0x0f;
  const masked = (data[1]! & 0x80) !== 0;
  let size = data[1]! & 0x7f;
  let offset = 2;
  if (size === 126) {
    if (data.length < 4) return undefined;
    size = data.readUInt16BE(2);
    offset = 4;
  } else if (size === 127) {
    if (data.length < 10) return undefined;
    size = Number(data.readBigUInt64BE(2));
    offset = 10;
  }
  const maskOffset = offset;
  if (masked) offset += 4;
  if (data.length < offset + size) return undefined;
  const payload = Buffer.from(data.subarray(offset, offset + size));
  if (masked) for (let i = 0; i < payload.length; i++) payload[i]! ^= data[maskOffset + (i % 4)]!;
  return { opcode, payload, length: offset + size };
}

/** An unmasked server frame. */
function frame(opcode: number, payload: Buffer): Buffer {
  const head = payload.length < 126 ? Buffer.of(0x80 | opcode, payload.length)
    : payload.length < 65536 ? Buffer.of(0x80 | opcode, 126, payload.length >> 8, payload.length & 0xff)
      : Buffer.concat([Buffer.of(0x80 | opcode, 127), bigLength(payload.length)]);
  return Buffer.concat([head, payload]);
}

function bigLength(length: number): Buffer {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64BE(BigInt(length));
  return buffer;
}

function standInKubeConfig(port: number): KubeConfig {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: 'stand-in', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'gateway' }],
    contexts: [{ name: 'stand-in', cluster: 'stand-in', user: 'gateway' }],
    currentContext: 'stand-in',
  });
  return config;
}
