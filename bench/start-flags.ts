// What `npm start` runs, for the benches that run the embedded stack as a user meets it.
import fs from 'node:fs';

/** The node flags of package.json's `npm start`, with `${VAR:-default}` expanded as the shell would. */
export function startNodeFlags(): string {
  const script = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts.start as string;
  const flags = /\bnode ((?:--\S+ )*)dist\/embedded\.mjs/.exec(script)?.[1] ?? '';
  return flags.replace(/\$\{(\w+):-([^}]*)\}/g, (_, name: string, fallback: string) => process.env[name] ?? fallback).trim();
}

/** The environment `npm start` sets before node (MALLOC_ARENA_MAX), as the shell would expand it. */
export function startEnv(): Record<string, string> {
  return { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2' };
}
