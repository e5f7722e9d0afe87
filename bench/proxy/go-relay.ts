// The Go baseline (bench/go-relay: mcp-go's streamable HTTP server in front of mcp-go's client),
// built on first use, started on loopback in front of one upstream. Callers bring `callerKey` as
// a bearer token; it sends `token` upstream. Its process's CPU is read from /proc like the others'.
// One core (GOMAXPROCS=1) as nginx has one worker: as many as the Node process's one event loop.
// BENCH_GO_RELAY_GOMAXPROCS gives another (docs/scale.md has both).
import { spawn } from 'node:child_process';
import { createLogger } from '../../platform/logger';
import { ensureGoRelay } from '../go-relay/build';
import { stop, type Child } from './child';

export async function startGoRelay(upstreamUrl: string, token: string, callerKey: string): Promise<Child> {
  const binary = await ensureGoRelay(createLogger('bench-go-relay', 'info'));
  const child = spawn(binary, [], {
    env: { ...process.env, GOMAXPROCS: process.env.BENCH_GO_RELAY_GOMAXPROCS ?? '1', RELAY_UPSTREAM_URL: upstreamUrl, RELAY_UPSTREAM_TOKEN: token, RELAY_CALLER_KEY: callerKey },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /READY (\d+)/.exec(output);
      if (match) resolve({ port: Number(match[1]), pid: child.pid!, stop: () => stop(child) });
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the Go relay exited with ${code}: ${output}`)));
  });
}
