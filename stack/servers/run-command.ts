// Runs a command to completion; its output goes to the debug log and, if it fails, into the error.
// A command that outlives `timeoutMs` is killed: kwokctl, for one, can hang after a failed start.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Logger } from '../../platform/logger';

const TAIL_LINES = 30;

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  log: Logger;
  timeoutMs: number;
}

export function runCommand(command: string, args: string[], options: RunOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: options.env ?? process.env });
    const tail: string[] = [];
    const onLine = (line: string) => {
      tail.push(line);
      if (tail.length > TAIL_LINES) tail.shift();
      options.log.debug({ command }, line);
    };
    createInterface({ input: child.stdout }).on('line', onLine);
    createInterface({ input: child.stderr }).on('line', onLine);
    child.once('error', (error) => reject(new Error(`could not run ${command}: ${error.message}`)));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve();
      const why = signal === 'SIGKILL' ? `killed after ${options.timeoutMs} ms` : `exit ${code ?? signal}`;
      reject(new Error(`${command} ${args.join(' ')} failed (${why}); last output:\n${tail.join('\n')}`));
    });
  });
}
