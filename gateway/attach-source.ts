// A stdio server running in a sibling container of the gateway's own pod, reached through the
// Kubernetes attach API (stdin and stdout multiplexed over one WebSocket, channel byte first).
// The container must be started with `stdin: true` and `tty: false`; the pod's service account
// needs `create` on `pods/attach` for its own pod.
import { PassThrough } from 'node:stream';
// Types only here: the library is loaded when an attach starts (see kubernetes()), so that a
// gateway running its server as a child process never holds it (about 70 MB of memory).
import type { Attach, KubeConfig } from '@kubernetes/client-node';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { LineDecoder } from './line-decoder';
import { exitReason, type StdioExit, type StdioSource } from './stdio-source';

export interface AttachSourceOptions {
  namespace: string;
  pod: string;
  container: string;
  /** Default: loaded the usual way (KUBECONFIG, then in-cluster service account). */
  kubeConfig?: KubeConfig;
}

type BinaryHandler = (stream: number, buff: Buffer) => boolean;

// Channel numbers of the Kubernetes streaming protocol.
const STATUS_CHANNEL = 3;
const CLOSE_SIGNAL = 255;
const CLOSE_GRACE_MS = 2000;

// The status frame the API server sends when the attached process ends (a metav1.Status).
const ExitStatusSchema = z.looseObject({
  status: z.string().optional(),
  details: z.looseObject({
    causes: z.array(z.looseObject({ reason: z.string().optional(), message: z.string().optional() })).optional(),
  }).optional(),
});

/** The subset of the `ws` WebSocket this source uses (the package ships no types here). */
interface AttachSocket {
  on(event: 'close', listener: (code: number) => void): void;
  on(event: 'error', listener: (error: Error) => void): void;
  close(): void;
  terminate(): void;
}

export class AttachSource implements StdioSource {
  readonly description: string;
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onexit?: (exit: StdioExit) => void;

  private readonly stdin = new PassThrough();
  private socket?: AttachSocket;
  private exitCode: number | null = null;
  private stopping = false;
  private exit?: StdioExit;
  private readonly exitListeners: Array<() => void> = [];

  constructor(private readonly options: AttachSourceOptions) {
    this.description = `attach ${options.namespace}/${options.pod}/${options.container}`;
  }

  async start(): Promise<void> {
    if (this.socket) throw new Error('attach source already started');
    const { namespace, pod, container } = this.options;
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const decoder = new LineDecoder((m) => this.onmessage?.(m), (e) => this.onerror?.(e));
    stdout.on('data', (chunk: Buffer) => decoder.push(chunk));
    stderr.resume();
    try {
      const attach = await this.attachWithStatus();
      const socket = await attach.attach(namespace, pod, container, stdout, stderr, this.stdin, false);
      this.socket = socket as unknown as AttachSocket;
    } catch (error) {
      this.finish(`attach to container ${container} failed: ${describe(error)}`);
      throw error;
    }
    this.socket.on('error', (error) => this.onerror?.(error));
    this.socket.on('close', () => this.finish());
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.socket || this.exit) throw new Error('stdio server is not attached');
    this.stdin.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    if (!this.socket || this.exit) return;
    this.stopping = true;
    const closed = new Promise<void>((resolve) => this.exitListeners.push(resolve));
    // Only the stream is closed: the sibling container lives on, owned by its pod. Ending stdin
    // would send a CLOSE signal that can end the server, so it is left alone.
    this.socket.close();
    // A peer that never completes the closing handshake does not hold the gateway up.
    const timer = setTimeout(() => this.socket?.terminate(), CLOSE_GRACE_MS);
    await closed;
    clearTimeout(timer);
  }

  /** The library's Attach, with its frame handler wrapped to read the exit status. */
  private async attachWithStatus(): Promise<Attach> {
    const { Attach, KubeConfig } = await import('@kubernetes/client-node');
    const kubeConfig = this.options.kubeConfig ?? defaultKubeConfig(new KubeConfig());
    const inner = new Attach(kubeConfig).handler;
    return new Attach(kubeConfig, {
      connect: (path, text, binary) => inner.connect(path, text, this.statusReader(binary)),
    });
  }

  private statusReader(binary: BinaryHandler | null): BinaryHandler {
    return (stream, buff) => {
      if (stream === CLOSE_SIGNAL) return true;
      if (stream === STATUS_CHANNEL) this.exitCode = parseExitCode(buff);
      try {
        return binary ? binary(stream, buff) : true;
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        return true;
      }
    };
  }

  private finish(reason?: string): void {
    if (this.exit) return;
    const { container } = this.options;
    const why = reason
      ?? (this.stopping ? 'attach stream was closed by the gateway'
        : this.exitCode !== null ? exitReason(this.exitCode, null)
          : `attach stream to container ${container} closed`);
    this.exit = { code: this.exitCode, signal: null, reason: why };
    this.onexit?.(this.exit);
    for (const listener of this.exitListeners.splice(0)) listener();
  }
}

function defaultKubeConfig(config: KubeConfig): KubeConfig {
  config.loadFromDefault();
  return config;
}

/** 0 for Success, the ExitCode cause for a failure, null when the status says neither. */
export function parseExitCode(buff: Buffer): number | null {
  let parsed: z.infer<typeof ExitStatusSchema>;
  try {
    parsed = ExitStatusSchema.parse(JSON.parse(buff.toString('utf8')));
  } catch {
    return null;
  }
  if (parsed.status === 'Success') return 0;
  const cause = parsed.details?.causes?.find((c) => c.reason === 'ExitCode');
  const code = Number(cause?.message);
  return cause && Number.isInteger(code) ? code : null;
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  // The ws client rejects with an ErrorEvent, whose message is the useful part.
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : 'unknown error';
}
