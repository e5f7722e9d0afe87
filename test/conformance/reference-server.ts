// The conformance reference servers vendored beside this file, each as a child process: the suite's
// own fixture (SDK v1 with a hand-made 2026-07-28 path) and the TypeScript SDK v2's (both revisions
// natively). Both listen on PORT and say "running on http://localhost:PORT" once they are ready.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export interface ReferenceServer {
  /** http://127.0.0.1:{port}/mcp */
  url: string;
  stop(): Promise<void>;
}

export type ReferenceName = 'suite' | 'sdk-v2';

const ENTRIES: Record<ReferenceName, string> = {
  suite: fileURLToPath(new URL('./suite-everything-server.ts', import.meta.url)),
  'sdk-v2': fileURLToPath(new URL('./sdk-everything-server.ts', import.meta.url)),
};

export async function startReferenceServer(name: ReferenceName): Promise<ReferenceServer> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', ENTRIES[name]], {
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
