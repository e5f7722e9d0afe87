// What `npm start` and `npm run proxy` run, for the benches and tests that run the embedded stack
// or the proxy role as a user meets them: package.json's scripts are where their environment
// (MALLOC_ARENA_MAX) and node flags are declared, and the chart repeats the proxy's.
import fs from 'node:fs';

type Script = 'start' | 'proxy';
const ENTRIES: Record<Script, string> = { start: 'dist/embedded.mjs', proxy: 'dist/proxy.mjs' };

/** `VAR=... node --flag ... <entry>` of one script, `${VAR:-default}` expanded as the shell would. */
function parseScript(name: Script): { env: Record<string, string>; flags: string[] } {
  const script = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')).scripts[name] as string;
  const entry = ENTRIES[name].replace('.', '\\.');
  const [, assignments = '', flags = ''] = new RegExp(`((?:\\w+=\\S+ )*)node ((?:--\\S+ )*)${entry}`).exec(script) ?? [];
  const expand = (text: string) => text.replace(/\$\{(\w+):-([^}]*)\}/g, (_, variable: string, fallback: string) => process.env[variable] ?? fallback);
  const env = Object.fromEntries(assignments.split(' ').filter(Boolean).map((pair) => {
    const at = pair.indexOf('=');
    return [pair.slice(0, at), expand(pair.slice(at + 1))];
  }));
  return { env, flags: expand(flags).split(' ').filter(Boolean) };
}

/** The node flags of one of package.json's scripts. */
export function scriptNodeFlags(name: Script): string[] {
  return parseScript(name).flags;
}

/** The environment one of package.json's scripts sets before node (MALLOC_ARENA_MAX). */
export function scriptEnv(name: Script): Record<string, string> {
  return parseScript(name).env;
}

/** The node flags of `npm start`: arguments, not NODE_OPTIONS, which refuses `--min-semi-space-size`. */
export function startNodeFlags(): string[] {
  return scriptNodeFlags('start');
}

/** The environment `npm start` sets before node. */
export function startEnv(): Record<string, string> {
  return scriptEnv('start');
}

/** A role's command as the chart and the image run it: the proxy with `npm run proxy`'s node flags, the others with none. */
export function roleCommand(role: 'api' | 'proxy' | 'worker'): string[] {
  return ['node', ...(role === 'proxy' ? scriptNodeFlags('proxy') : []), `dist/${role}.mjs`];
}
