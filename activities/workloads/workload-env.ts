// The environment a stdio server gets: the preset's env, the connect's values for the preset's
// env_inputs, plus the connect request's token under access_token_env_name when the preset names
// one and a token was given. Every runtime uses it.
import { dirname } from 'node:path';
import type { WorkloadSpec } from './runtime';

export function workloadEnv({ stdio, token, inputs }: Pick<WorkloadSpec, 'stdio' | 'token' | 'inputs'>): Record<string, string> {
  const env = { ...(stdio.env ?? {}), ...inputs };
  if (token !== null && stdio.access_token_env_name) env[stdio.access_token_env_name] = token;
  return env;
}

/**
 * The directories a server run as its own uid finds programs in: the one that holds the node
 * running the service (so `node` and `npx` are the service's own), then the system's.
 */
export function isolatedPath(): string {
  return [...new Set([dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'])].join(':');
}

/**
 * Everything a server run as its own uid starts with, before the preset's env: nothing of the
 * service's (HOME, USER and the rest name the service's account, not the server's). HOME and
 * TMPDIR are its scratch folder, so caches (npx's included) and temporary files stay its own.
 */
export function isolatedBaseEnv(scratchDir: string): Record<string, string> {
  return { PATH: isolatedPath(), HOME: scratchDir, TMPDIR: scratchDir };
}
