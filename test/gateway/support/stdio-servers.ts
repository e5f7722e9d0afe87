// The real reference stdio servers from npm, run as child processes of the gateway under test.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../../platform/logger';
import { ProcessSource, type ProcessSourceOptions } from '../../../gateway/process-source';

const moduleRoot = (pkg: string) => fileURLToPath(new URL(`../../../node_modules/${pkg}/`, import.meta.url));

export const EVERYTHING_SERVER = join(moduleRoot('@modelcontextprotocol/server-everything'), 'dist/index.js');
export const MEMORY_SERVER = join(moduleRoot('@modelcontextprotocol/server-memory'), 'dist/index.js');

export const quietLogger = createLogger('gateway-test', process.env.LOG_LEVEL ?? 'silent');

export function everythingSource(options: Partial<ProcessSourceOptions> = {}): ProcessSource {
  return new ProcessSource({ command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'], stderr: 'ignore', ...options });
}

/** server-memory, with its knowledge graph in a fresh temporary file (not inside node_modules). */
export function memorySource(): ProcessSource {
  const file = join(mkdtempSync(join(tmpdir(), 'gateway-memory-')), 'memory.jsonl');
  return new ProcessSource({
    command: process.execPath, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: file }, stderr: 'ignore',
  });
}

export const SCRIPTED_SERVER = fileURLToPath(new URL('./scripted-stdio-server.ts', import.meta.url));

/** The scripted server of scripted-stdio-server.ts, run through tsx like the project's code. */
export function scriptedSource(env: Record<string, string> = {}): ProcessSource {
  return new ProcessSource({ command: process.execPath, args: ['--import', 'tsx', SCRIPTED_SERVER], stderr: 'ignore', env });
}

export const MODERN_SERVER = fileURLToPath(new URL('./modern-stdio-server.ts', import.meta.url));

/** A stdio server that speaks only 2026-07-28 (SDK v2, serveStdio with legacy: 'reject'). */
export function modernSource(): ProcessSource {
  return new ProcessSource({ command: process.execPath, args: ['--import', 'tsx', MODERN_SERVER], stderr: 'ignore' });
}
