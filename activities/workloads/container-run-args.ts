// The `run` command line of one stdio server container (podman and Docker share these flags).
// The container is a sandbox for third-party code: what it may not do is decided here, in one
// pure function that the tests read back with `podman inspect`.
import { cpuCores, memoryBytes } from '../../contract/kube-quantity';
import type { StdioConfig } from '../../contract/schemas';
import { serverResources } from './kube-resources';

/** The label that names a container's connector; the reconciler finds orphans by it. */
export const CONNECTOR_LABEL = 'io.connector-registry.connector-id';
/** The label that names the deployment that started it, so two services on one engine never reap each other's. */
export const OWNER_LABEL = 'io.connector-registry.owner';

/** nobody:nogroup in Debian-based images; any image runs as it, since nothing is written outside /tmp. */
export const CONTAINER_USER = '65534:65534';
/** Process limit per container: enough for npx and a shell, far from a fork bomb. */
export const DEFAULT_PIDS_LIMIT = 256;
/**
 * Seconds a stop or `rm --force` waits after SIGTERM before SIGKILL. A Node server runs as the
 * container's pid 1, which ignores SIGTERM unless it says otherwise, so every disconnect waited out
 * the engine's default 10 s; the gateway has already given the server the same 2 s to end.
 */
export const STOP_TIMEOUT_S = 2;

export interface ContainerRunOptions {
  connectorId: string;
  owner: string;
  stdio: StdioConfig;
  /** Names of the env entries: their values reach the engine through its own environment, never argv. */
  envNames: string[];
  /**
   * null: `--network none` (its own loopback only). Else the egress network (egress-network.ts)
   * whose namespace the container joins, and the DNS forwarder it names.
   */
  network: { namespace: string; dns: string } | null;
  /** What `run` starts: the image's id, so that no name is resolved (short names would ask a registry). */
  imageId: string;
  pidsLimit?: number;
}

export function containerName(connectorId: string): string {
  return `connector-${connectorId}`;
}

export function containerRunArgs(options: ContainerRunOptions): string[] {
  const { stdio } = options;
  const limits = serverResources(stdio.resources).limits as Record<'cpu' | 'memory', string>;
  const [entrypoint, ...commandRest] = stdio.command ?? [];
  return [
    'run', '--interactive', '--rm',
    '--name', containerName(options.connectorId),
    '--label', `${CONNECTOR_LABEL}=${options.connectorId}`,
    '--label', `${OWNER_LABEL}=${options.owner}`,
    // Never contact a registry behind the operator's back: images are built or pulled ahead.
    '--pull', 'never',
    ...(options.network ? ['--network', `ns:${options.network.namespace}`, '--dns', options.network.dns] : ['--network', 'none']),
    '--user', CONTAINER_USER,
    '--read-only', '--tmpfs', '/tmp:rw,nosuid,nodev,size=64m',
    '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges',
    '--memory', String(Math.floor(memoryBytes(limits.memory))),
    '--cpus', String(cpuCores(limits.cpu)),
    '--pids-limit', String(options.pidsLimit ?? DEFAULT_PIDS_LIMIT),
    '--stop-timeout', String(STOP_TIMEOUT_S),
    '--workdir', '/tmp', '--env', 'HOME=/tmp',
    ...options.envNames.flatMap((name) => ['--env', name]),
    // `command` replaces the image's entrypoint and `args` its arguments, as on Kubernetes.
    ...(entrypoint === undefined ? [] : ['--entrypoint', entrypoint]),
    options.imageId,
    ...commandRest,
    ...(stdio.args ?? []),
  ];
}
