// What `npm start` and `npm run proxy` run, for the benches that run the embedded stack or the proxy
// role as a user meets them (package.json's scripts are where their node flags are declared).
import fs from 'node:fs';

type Script = 'start' | 'proxy';
const ENTRIES: Record<Script, string> = { start: 'dist/embedded.mjs', proxy: 'dist/proxy.mjs' };

/** The node flags of one of package.json's scripts, with `${VAR:-default}` expanded as the shell would. */
export function scriptNodeFlags(name: Script): string[] {
  const script = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts[name] as string;
  const entry = ENTRIES[name].replace('.', '\\.');
  const flags = new RegExp(`\\bnode ((?:--\\S+ )*)${entry}`).exec(script)?.[1] ?? '';
  return flags.replace(/\$\{(\w+):-([^}]*)\}/g, (_, variable: string, fallback: string) => process.env[variable] ?? fallback).split(' ').filter(Boolean);
}

/** The node flags of `npm start`, as one string. */
export function startNodeFlags(): string {
  return scriptNodeFlags('start').join(' ');
}

/** The environment `npm start` and `npm run proxy` set before node (MALLOC_ARENA_MAX), as the shell would expand it. */
export function startEnv(): Record<string, string> {
  return { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2' };
}
