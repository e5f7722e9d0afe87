// A stdio server run as a child process of the gateway. It gets its own process group so that
// closing kills everything it started, not only the direct child (npx, sh -c and friends fork).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../platform/logger';
import { LineDecoder } from './line-decoder';
import { StderrLog } from './stderr-log';
import { exitReason, type StdioExit, type StdioSource } from './stdio-source';

export interface ProcessSourceOptions {
  command: string;
  args?: string[];
  /** Added to a minimal environment (PATH, HOME, ...): the gateway's own env is not passed on. */
  env?: Record<string, string>;
  /**
   * False: `env` is the whole environment, nothing is taken from this process's (not even PATH
   * or HOME): for a server run as another uid, whose HOME and PATH are not this process's.
   */
  inheritDefaults?: boolean;
  /** Run the server as this uid and gid (this process needs CAP_SETUID and CAP_SETGID); default: this process's. */
  uid?: number;
  gid?: number;
  cwd?: string;
  /**
   * Where the server's stderr goes: into this logger as data, a line per entry (stderr-log.ts),
   * the default; 'ignore'; or 'inherit' (this process's stderr, raw: for a person at a terminal only).
   */
  stderr?: 'inherit' | 'ignore' | { log: Logger };
  /** How long close() waits after SIGTERM before SIGKILL; default 2000 ms. */
  killGraceMs?: number;
}

// After the leader exits, its stdout may still hold responses; wait this long for the pipe to
// drain before reporting the exit anyway (a stray grandchild outside the group may keep it open).
const DRAIN_MS = 1000;

export class ProcessSource implements StdioSource {
  readonly description: string;
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onexit?: (exit: StdioExit) => void;

  private child?: ChildProcess;
  private stopping = false;
  private exit?: StdioExit;
  private readonly exitListeners: Array<() => void> = [];

  constructor(private readonly options: ProcessSourceOptions) {
    this.description = `process ${options.command}`;
  }

  /** The process id of the server (also its process group id), once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    if (this.child) throw new Error('process source already started');
    const { command, args = [], env = {}, cwd, stderr = 'ignore', inheritDefaults = true, uid, gid } = this.options;
    // With a uid or gid given, libuv also drops the supplementary groups (setgroups(0)) before
    // exec, so the server keeps none of this process's groups.
    const child = spawn(command, args, {
      detached: true,
      stdio: ['pipe', 'pipe', typeof stderr === 'string' ? stderr : 'pipe'],
      env: inheritDefaults ? { ...getDefaultEnvironment(), ...env } : env,
      cwd,
      uid,
      gid,
      windowsHide: true,
    });
    this.child = child;
    this.wire(child);
    if (typeof stderr === 'object') logStderr(child, stderr.log);
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.exit || stdin.destroyed) throw new Error('stdio server is not running');
    if (!stdin.write(serializeMessage(message))) await once(stdin, 'drain');
  }

  async close(): Promise<void> {
    if (!this.child || this.exit) return;
    // An exit already under way (draining) keeps its own reason.
    this.stopping = this.child.exitCode === null && this.child.signalCode === null;
    const exited = new Promise<void>((resolve) => this.exitListeners.push(resolve));
    this.child.stdin?.end();
    this.signalGroup('SIGTERM');
    const grace = setTimeout(() => this.signalGroup('SIGKILL'), this.options.killGraceMs ?? 2000);
    await exited;
    clearTimeout(grace);
  }

  private wire(child: ChildProcess): void {
    const decoder = new LineDecoder((m) => this.onmessage?.(m), (e) => this.onerror?.(e));
    child.stdout?.on('data', (chunk: Buffer) => decoder.push(chunk));
    // EPIPE after the server died: the exit is reported through 'exit', not here.
    child.stdin?.on('error', () => undefined);
    child.on('error', (error) => {
      if (child.pid === undefined) this.finish(null, null, `stdio server failed to start: ${error.message}`);
      else this.onerror?.(error);
    });
    child.on('exit', (code, signal) => this.onChildExit(child, code, signal));
  }

  private onChildExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    // Whatever the leader left behind in its group goes with it.
    this.signalGroup('SIGKILL');
    const report = () => this.finish(code, signal);
    const timer = setTimeout(report, DRAIN_MS);
    timer.unref();
    child.once('close', () => {
      clearTimeout(timer);
      report();
    });
  }

  private finish(code: number | null, signal: string | null, reason?: string): void {
    if (this.exit) return;
    const why = reason ?? (this.stopping ? 'stdio server was stopped by the gateway' : exitReason(code, signal));
    this.exit = { code, signal, reason: why };
    this.onexit?.(this.exit);
    for (const listener of this.exitListeners.splice(0)) listener();
  }

  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is already empty.
    }
  }
}

function logStderr(child: ChildProcess, logger: Logger): void {
  const log = new StderrLog(logger);
  child.stderr?.on('data', (chunk: Buffer) => log.push(chunk));
  child.stderr?.once('end', () => log.end());
}
