// Runs one server binary as a child process: clears a leftover from an earlier run, starts it,
// waits until it really answers (probe), and stops it with SIGTERM then SIGKILL. If the child
// exits before answering, the error carries the first and last lines it printed: a Go panic
// names its cause on the first line and buries it under a long stack trace.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../platform/logger';
import { killOnParentDeath } from './parent-watchdog';
import { listensOn } from './listener-owner';
import { removePidFile, stopLeftover, writePidFile } from './pid-file';

export interface ChildServerSpec {
  /** For logs and errors: "temporal", "ferretdb". */
  name: string;
  binary: string;
  args: string[];
  pidFile: string;
  /** Arguments that only this server on this data dir has: how a leftover is recognised. */
  identityArgs: string[];
  /** Resolves once the server answers; throws (or rejects) while it does not yet. */
  probe: () => Promise<void>;
  /** The port the probe reaches: ready only once the child itself listens there (listener-owner.ts). */
  port?: number;
  log: Logger;
  readyTimeoutMs?: number;
  /** Called once the process runs, long before it answers: what waits on it may begin. */
  onSpawned?: () => void;
}

export interface ChildServer {
  pid: number;
  /** Settles with the exit code (or signal name) once the process has exited. */
  exited: Promise<number | string>;
  stop(): Promise<void>;
}

const HEAD_LINES = 10;
const TAIL_LINES = 30;
const PROBE_INTERVAL_MS = 100;
const STOP_GRACE_MS = 10_000;

export async function startChildServer(spec: ChildServerSpec): Promise<ChildServer> {
  await stopLeftover(spec.pidFile, spec.identityArgs, spec.log);
  // A process group of its own: a signal to ours (Ctrl-C in a terminal, systemd's stop, a
  // supervisor's SIGTERM to the group) reaches only the process that started the server, which
  // stops it once its worker has finished with it. Signalled with the rest, Temporal went away while
  // the worker's shutdown still needed it, which then retried for about 5 s (docs/scale.md).
  const child = spawn(spec.binary, spec.args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  // Listened for before anything is awaited: a child that loses its port can exit while its pid
  // file is written, and an 'exit' missed then left the start waiting for ever (CI saw it).
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  const output = captureOutput(child, spec.name, spec.log);
  const pid = await spawned(child, spec.name);
  spec.onSpawned?.();
  child.on('error', (error) => spec.log.warn({ server: spec.name, err: error }, 'signalling the server failed'));
  await writePidFile(spec.pidFile, pid);
  const watchdog = killOnParentDeath(pid);
  // The pid file and the watchdog go as soon as the child does, whoever stopped it.
  const cleanedUp = exited.then(async () => {
    watchdog.dispose();
    await removePidFile(spec.pidFile, pid);
  });
  const stop = async () => {
    watchdog.dispose();
    await stopChild(child, exited);
    await cleanedUp;
  };
  try {
    await waitUntilReady(spec, pid, exited, output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { pid, exited, stop };
}

function spawned(child: ChildProcess, name: string): Promise<number> {
  return new Promise((resolve, reject) => {
    child.once('error', (error) => reject(new Error(`could not start ${name}: ${error.message}`)));
    child.once('spawn', () => resolve(child.pid as number));
  });
}

interface CapturedOutput {
  head: string[];
  tail: string[];
  /** Lines that were in neither head nor tail. */
  skipped: number;
  /** Settles once both streams have ended: 'exit' can come before the last lines are read. */
  ended: Promise<unknown>;
}

function captureOutput(child: ChildProcess, name: string, log: Logger): CapturedOutput {
  const captured: CapturedOutput = { head: [], tail: [], skipped: 0, ended: Promise.resolve() };
  const onLine = (line: string) => {
    if (captured.head.length < HEAD_LINES) captured.head.push(line);
    else captured.tail.push(line);
    if (captured.tail.length > TAIL_LINES) {
      captured.tail.shift();
      captured.skipped += 1;
    }
    log.debug({ server: name }, line);
  };
  const streams = [child.stdout, child.stderr].filter((s) => s !== null);
  captured.ended = Promise.all(streams.map((input) => new Promise((resolve) => {
    createInterface({ input }).on('line', onLine).once('close', resolve);
  })));
  return captured;
}

/** 'ready' when the answer came from the child, not from another process on its port. */
async function answeredByChild(spec: ChildServerSpec, pid: number): Promise<'ready' | 'not yet'> {
  if (spec.port === undefined || (await listensOn(pid, spec.port)) !== false) return 'ready';
  return 'not yet'; // another process answered; the child will exit with a port conflict
}

function printed(output: CapturedOutput): string {
  const gap = output.skipped > 0 ? [`[… ${output.skipped} lines …]`] : [];
  return [...output.head, ...gap, ...output.tail].join('\n');
}

async function waitUntilReady(spec: ChildServerSpec, pid: number, exited: Promise<number | string>, output: CapturedOutput): Promise<void> {
  const timeoutMs = spec.readyTimeoutMs ?? 60_000;
  const exit = exited.then((status) => ({ exited: status }));
  // One timer for the whole wait: a probe that hangs must not outlast the deadline either.
  const cancelTimer = new AbortController();
  const timedOut = sleep(timeoutMs, 'timed out' as const, { signal: cancelTimer.signal }).catch(() => 'timed out' as const);
  let lastError: unknown;
  try {
    for (;;) {
      const outcome = await Promise.race([
        spec.probe().then(() => answeredByChild(spec, pid), (error: unknown) => { lastError = error; return 'not yet' as const; }),
        exit,
        timedOut,
      ]);
      if (outcome === 'ready') return;
      if (outcome === 'timed out') {
        const reason = lastError instanceof Error ? lastError.message : String(lastError);
        throw new Error(`${spec.name} did not answer within ${timeoutMs} ms (last probe error: ${reason}); its output:\n${printed(output)}`);
      }
      if (outcome !== 'not yet') {
        await Promise.race([output.ended, sleep(1_000)]);
        throw new Error(`${spec.name} exited (${outcome.exited}) before answering; its output:\n${printed(output)}`);
      }
      await sleep(PROBE_INTERVAL_MS);
    }
  } finally {
    cancelTimer.abort();
  }
}

async function stopChild(child: ChildProcess, exited: Promise<number | string>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => { timer = setTimeout(resolve, STOP_GRACE_MS, 'timeout'); });
  const outcome = await Promise.race([exited, timedOut]);
  clearTimeout(timer);
  if (outcome === 'timeout') {
    child.kill('SIGKILL');
    await exited;
  }
}
