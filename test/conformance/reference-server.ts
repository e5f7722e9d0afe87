// The conformance suite's reference server (everything-server.ts, vendored beside this file) as a
// child process: it listens on PORT and says "running on http://localhost:PORT" once it is ready.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export interface ReferenceServer {
  /** http://127.0.0.1:{port}/mcp */
  url: string;
  stop(): Promise<void>;
}

const ENTRY = fileURLToPath(new URL('./everything-server.ts', import.meta.url));

export async function startReferenceServer(): Promise<ReferenceServer> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', ENTRY], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      await ready(child, port);
      return { url: `http://127.0.0.1:${port}/mcp`, stop: () => stop(child) };
    } catch (err) {
      await stop(child);
      if (attempt === 3) throw err; // the port was taken between our probe and its bind
    }
  }
}

function ready(child: ChildProcess, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(`running on http://localhost:${port}`)) resolve();
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.once('exit', (code) => reject(new Error(`the conformance reference server exited (${code}): ${output}`)));
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
