// The service's own variables are named CONNECTOR__X. Names from before that rule still work
// for now: each old name's value is read under its new name (the new name wins when both are
// set), and a process that met any of them logs one warning at start naming them all.
// Variables another program defines keep that program's name: PORT, HOST, BASE_URL, DATA_DIR,
// LOG_LEVEL, LOG_FORMAT, MONGODB_URI, MONGODB_DATABASE (the usual deployment names), TEMPORAL_ADDRESS,
// TEMPORAL_NAMESPACE, TEMPORAL_TLS*, TEMPORAL_API_KEY (Temporal's envconfig, which its CLI reads
// too), OTEL_* (OpenTelemetry), KUBECONFIG, MALLOC_ARENA_MAX, and the toolchain's *_BIN paths.
import type { Logger } from '../platform/logger';

export const RENAMED_VARIABLES = {
  METRICS_PORT: 'CONNECTOR__METRICS_PORT',
  PROXY_PROCESSES: 'CONNECTOR__PROXY_PROCESSES',
  // Not Temporal's own variables (its envconfig has no task queue or cache size), so ours.
  TEMPORAL_TASK_QUEUE: 'CONNECTOR__TASK_QUEUE',
  TEMPORAL_MAX_CACHED_WORKFLOWS: 'CONNECTOR__MAX_CACHED_WORKFLOWS',
  // The development toolchain's (stack/toolchain).
  CONNECTOR_REGISTRY_CACHE: 'CONNECTOR__CACHE',
  CONNECTOR_REGISTRY_DOWNLOAD: 'CONNECTOR__DOWNLOAD',
  CONNECTOR_REGISTRY_DOWNLOAD_TIMEOUT_MS: 'CONNECTOR__DOWNLOAD_TIMEOUT_MS',
  CONNECTOR_REGISTRY_RELEASE_MIRROR: 'CONNECTOR__RELEASE_MIRROR',
  CONNECTOR_REGISTRY_INSTALL_PODMAN: 'CONNECTOR__INSTALL_PODMAN',
} as const;

export type OldName = keyof typeof RENAMED_VARIABLES;

/** `env` with every old name's value under its new name, unless the new one is set; and the old names met. */
export function withCurrentNames(env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; oldNames: OldName[] } {
  const current: NodeJS.ProcessEnv = { ...env };
  const oldNames: OldName[] = [];
  for (const [old, name] of Object.entries(RENAMED_VARIABLES) as [OldName, string][]) {
    if (env[old] === undefined || env[old] === '') continue;
    oldNames.push(old);
    if (env[name] === undefined || env[name] === '') current[name] = env[old];
    delete current[old];
  }
  return { env: current, oldNames };
}

let warned = false;

/** One warning per process, however many times start-up code asks (the embedded stack and a role both may). */
export function warnOldNames(log: Logger, oldNames: readonly OldName[]): void {
  if (warned || oldNames.length === 0) return;
  warned = true;
  const renames = oldNames.map((old) => `${old} (now ${RENAMED_VARIABLES[old]})`);
  log.warn({ deprecatedVariables: oldNames }, `deprecated variable names, to be removed: ${renames.join(', ')}`);
}
