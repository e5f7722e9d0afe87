// Runs a bench server in its own process (so each gets its own event loop, as in production)
// and waits for the line "READY <port>" it prints once it listens. TypeScript is compiled first
// (esbuild, as `npm run build` compiles dist/), so the process runs plain JavaScript like a
// production one: no tsx loader in its CPU time or its memory.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export interface Child {
  port: number;
  pid: number;
  stop(): Promise<void>;
}

const BUILD_DIR = fileURLToPath(new URL('../.build/', import.meta.url));

let builds = 0;

/** The node flags a bench variable names, e.g. BENCH_PROXY_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/p". */
export function nodeArgsFrom(variable: string): string[] {
  return (process.env[variable] ?? '').split(' ').filter(Boolean);
}

/** `script`: relative to this folder, or absolute (another checkout's, as the bench's baseline). */
export async function startChild(script: string, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<Child> {
  const file = await compiled(path.isAbsolute(script) ? script : fileURLToPath(new URL(script, import.meta.url)));
  const child = spawn(process.execPath, [...nodeArgs, file], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /READY (\d+)/.exec(output);
      if (match) resolve({ port: Number(match[1]), pid: child.pid!, stop: () => stop(child).finally(() => rmSync(path.dirname(file), { recursive: true, force: true })) });
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}: ${output}`)));
  });
}

/**
 * bench/.build/<name>-<pid>-<n>/<name>.mjs, inside the checkout so that node_modules resolves from
 * it. Split into chunks as stack/build.ts splits dist/, so that a module the process imports only
 * when it needs it (the toolsets' endpoint) is not loaded at start here either.
 */
async function compiled(source: string): Promise<string> {
  const name = path.basename(source, '.ts');
  const outdir = path.join(BUILD_DIR, `${name}-${process.pid}-${builds++}`);
  mkdirSync(outdir, { recursive: true });
  await build({
    entryPoints: [source], outdir, bundle: true, splitting: true, packages: 'external', platform: 'node', format: 'esm',
    outExtension: { '.js': '.mjs' }, target: 'node20.19', logLevel: 'warning',
  });
  return path.join(outdir, `${name}.mjs`);
}

export function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
