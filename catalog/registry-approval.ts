// What an admin's approval of a registry stdio preset pins: not a name and a version (a registry
// can republish a version as anything, issue 37), but what will run, read from the package the
// preset runs: its registry type, identifier, exact version and the registry it comes from, the
// image, the command the local runtime spawns, the arguments, and the environment (names and the
// values that are not secrets; a secret's value enters the digest only as its hash). The digest
// is a SHA-256 of that description in a canonical form; a sync that changes any of it clears the
// approval, and the presets list says what changed. Operator settings (the overlay: resources,
// allow_package_fetch) are not part of it: they are this deployment's, not the registry's.
import { createHash } from 'node:crypto';
import { resolveInput } from './registry-inputs';
import { DEFAULT_BASE, toolCommand } from './registry-packages';
import type { Argument, Package } from './server-json';

/** What will run, as an approval pins it and the approvals view shows it. */
export interface PresetRun {
  registry_type: string;
  /** The image reference (oci), or the package's name (npm, pypi). */
  identifier: string;
  version: string | null;
  /** Where the package is fetched from (npm and PyPI); null for images. */
  registry_base_url: string | null;
  /** What the local runtime spawns (npx or uvx and its arguments); null for images. */
  command: string[] | null;
  /** The arguments after the image (oci); for packages they are part of the command. */
  args: string[];
  /** Name and value; a secret's value reads SECRET_VALUE, one a connect supplies TOKEN_VALUE. */
  env: Record<string, string>;
}

export const SECRET_VALUE = '(secret)';
export const TOKEN_VALUE = '(the connect\'s access_token)';
const MISSING = (label: string) => `(missing: ${label})`;

/** The package's run, however the mapping judged it: a refused package still says what it would run. */
export function describeRun(pkg: Package): { run: PresetRun; secretHashes: Record<string, string> } {
  const kind = pkg.registryType;
  const tool = kind === 'npm' || kind === 'pypi' ? kind : null;
  const args = (pkg.packageArguments ?? []).flatMap(argumentValues);
  const env: Record<string, string> = {};
  const secretHashes: Record<string, string> = {};
  let token = false;
  for (const variable of pkg.environmentVariables ?? []) {
    const resolved = resolveInput(variable, variable.name);
    if ('absent' in resolved) continue;
    // As the mapping reads it: the first required secret is the connect's token.
    if ('missing' in resolved) {
      env[variable.name] = variable.isSecret && !token ? TOKEN_VALUE : MISSING(variable.name);
      token ||= Boolean(variable.isSecret);
    }
    else if (variable.isSecret) {
      env[variable.name] = SECRET_VALUE;
      secretHashes[variable.name] = sha256(resolved.value);
    } else env[variable.name] = resolved.value;
  }
  const run: PresetRun = {
    registry_type: kind,
    identifier: pkg.identifier,
    version: pkg.version ?? null,
    registry_base_url: tool ? (pkg.registryBaseUrl ?? DEFAULT_BASE[tool]).replace(/\/+$/, '') : (pkg.registryBaseUrl ?? null),
    command: tool ? [...toolCommand(tool, pkg.identifier, pkg.version ?? '(no version)'), ...args] : null,
    args: tool ? [] : args,
    env,
  };
  return { run, secretHashes };
}

function argumentValues(arg: Argument): string[] {
  const label = arg.type === 'named' ? arg.name ?? 'argument' : arg.valueHint ?? 'argument';
  const resolved = resolveInput(arg, label);
  if ('absent' in resolved) return [];
  const value = 'value' in resolved ? resolved.value : MISSING(label);
  return arg.type === 'named' ? [arg.name ?? '', value] : [value];
}

/** The digest an approval pins: the run and its secrets' hashes, keys sorted. */
export function runDigest(described: { run: PresetRun; secretHashes: Record<string, string> }): string {
  return `sha256:${sha256(canonical({ run: described.run, secrets: described.secretHashes }))}`;
}

/** What differs between the run an admin approved and the one the registry serves now, in words. */
export function runChanges(approved: PresetRun, now: PresetRun): string[] {
  const changes: string[] = [];
  const shown = (v: unknown) => (v === null ? 'none' : Array.isArray(v) ? v.join(' ') : String(v));
  for (const field of ['registry_type', 'identifier', 'version', 'registry_base_url', 'command', 'args'] as const) {
    if (canonical(approved[field]) !== canonical(now[field])) changes.push(`${field}: ${shown(approved[field])} → ${shown(now[field])}`);
  }
  for (const name of new Set([...Object.keys(approved.env), ...Object.keys(now.env)])) {
    const [before, after] = [approved.env[name], now.env[name]];
    if (before === undefined) changes.push(`env ${name} added: ${after}`);
    else if (after === undefined) changes.push(`env ${name} removed`);
    else if (before !== after) changes.push(`env ${name}: ${before} → ${after}`);
  }
  return changes;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
