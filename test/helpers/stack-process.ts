// The embedded stack as a real process tree (what `npm start` runs), for tests that kill it.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, retryOnPortConflict } from '../../service/free-port';
import { killOnParentDeath } from '../../stack/servers/parent-watchdog';
import { SERVICE_TEST_ENV } from './service-env';
import { apiClient, eventually, type ApiCall } from './test-stack';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface StackProcess {
  child: ChildProcess;
  api: ApiCall;
  baseUrl: string;
  /** SIGKILL to the whole process group: no handler runs, nothing is cleaned up. */
  kill(): Promise<void>;
  /** SIGTERM and wait for a clean exit. */
  stop(): Promise<number | null>;
}

/**
 * Runs `entry` (default: the embedded stack) in its own process group, logging to `logFile`: a
 * compiled `dist/*.mjs` with plain node, as the images run it; TypeScript with tsx.
 */
export interface StackProcessOptions {
  env: Record<string, string>;
  logFile: string;
  entry?: string;
  /** Readiness: this path answers 200 (default /readyz), or, for a process without HTTP, this line appears in its log. */
  readyPath?: string;
  readyLogLine?: string;
  /** Node flags before the entry (those NODE_OPTIONS refuses, such as --cpu-prof). */
  nodeArgs?: string[];
}

export async function startStackProcess(options: StackProcessOptions): Promise<StackProcess> {
  fs.mkdirSync(path.dirname(options.logFile), { recursive: true });
  const log = fs.openSync(options.logFile, 'a');
  const entry = options.entry ?? 'stack/embedded.ts';
  if (entry.endsWith('.mjs') && !fs.existsSync(path.join(ROOT, entry))) throw new Error(`${entry} is missing: run npm run build`);
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...(entry.endsWith('.ts') ? ['--import', 'tsx'] : []), entry], {
    cwd: ROOT, env: { ...process.env, ...SERVICE_TEST_ENV, ...options.env }, stdio: ['ignore', log, log], detached: true,
  });
  fs.closeSync(log);
  // Its own process group keeps a Ctrl-C of ours from reaching it, so it must not outlive us:
  // a bench interrupted or a test worker that crashed would leave it and its servers running.
  const watchdog = child.pid === undefined ? null : killOnParentDeath(child.pid);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => { watchdog?.dispose(); resolve(code); }));
  const baseUrl = `http://127.0.0.1:${options.env.PORT}`;
  const api = apiClient(baseUrl);
  const failed = exited.then((code) => { throw new Error(`process exited with ${code}; see ${options.logFile}; it ends:\n${logTail(options.logFile)}`); });
  await Promise.race([
    eventually(async () => {
      if (options.readyLogLine) return fs.readFileSync(options.logFile, 'utf8').includes(options.readyLogLine) ? true : undefined;
      return (await api('GET', options.readyPath ?? '/readyz')).status === 200 ? true : undefined;
    }, 120_000, 'readiness'),
    failed,
  ]);
  failed.catch(() => undefined);
  return {
    child, api, baseUrl,
    async kill() {
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
      return exited;
    },
  };
}

/** The port a started server listens on (a process's PORT). */
export const portOf = (p: Pick<StackProcess, 'baseUrl'>): number => Number(new URL(p.baseUrl).port);

/**
 * Starts on a port picked here (PORT), and again on another when a process took it first: a
 * picked port is free only until the process binds it, and the suite's processes start side by
 * side (CI saw EADDRINUSE). For a process nothing else names by its port.
 */
export function startOnFreePort(options: StackProcessOptions): Promise<StackProcess> {
  return retryOnPortConflict(async () => startStackProcess({ ...options, env: { ...options.env, PORT: String(await freePort()) } }));
}

/** The log's last lines, so that a start that failed on a machine whose /tmp is gone (CI) still says why. */
function logTail(logFile: string, lines = 15): string {
  try {
    return fs.readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
