// Starts upstream.ts as a child process and waits for the URL it prints.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface UpstreamProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

export function startUpstreamProcess(token: string): Promise<UpstreamProcess> {
  const file = fileURLToPath(new URL('./upstream.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', file], { env: { ...process.env, BENCH_TOKEN: token }, stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = () => new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /READY (\S+)/.exec(output);
      if (match) resolve({ url: match[1]!, pid: child.pid!, stop });
    });
    child.once('exit', (code) => reject(new Error(`the upstream exited with ${code}: ${output}`)));
  });
}
