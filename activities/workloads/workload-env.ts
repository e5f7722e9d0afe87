// The environment a stdio server gets: the preset's env, plus the connect request's token under
// access_token_env_name when the preset names one and a token was given. Both runtimes use it.
import type { StdioConfig } from '../../core/schemas';

export function workloadEnv(stdio: StdioConfig, token: string | null): Record<string, string> {
  const env = { ...(stdio.env ?? {}) };
  if (token !== null && stdio.access_token_env_name) env[stdio.access_token_env_name] = token;
  return env;
}
