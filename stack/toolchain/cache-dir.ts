// The user-level cache that build.sh also writes to: the two must agree on the formula, so the
// build is always given the root explicitly (CONNECTOR__CACHE).
import { homedir } from 'node:os';
import { join } from 'node:path';
import { toolchainVariable } from './toolchain-env';

export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  const given = toolchainVariable('CONNECTOR__CACHE', env);
  if (given) return given;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'connector-registry');
}

export function cacheBinDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheRoot(env), 'bin');
}
