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

export interface ContainerRunOptions {
  connectorId: string;
  owner: string;
  stdio: StdioConfig;
  /** Names of the env entries: their values reach the engine through its own environment, never argv. */
  envNames: string[];
  /** `none` (loopback only, the default) or a network the operator created for servers that need egress. */
  network: string;
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
    '--network', options.network,
    '--user', CONTAINER_USER,
    '--read-only', '--tmpfs', '/tmp:rw,nosuid,nodev,size=64m',
    '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges',
    '--memory', String(Math.floor(memoryBytes(limits.memory))),
    '--cpus', String(cpuCores(limits.cpu)),
    '--pids-limit', String(options.pidsLimit ?? DEFAULT_PIDS_LIMIT),
    '--workdir', '/tmp', '--env', 'HOME=/tmp',
    ...options.envNames.flatMap((name) => ['--env', name]),
    // `command` replaces the image's entrypoint and `args` its arguments, as on Kubernetes.
    ...(entrypoint === undefined ? [] : ['--entrypoint', entrypoint]),
    stdio.image,
    ...commandRest,
    ...(stdio.args ?? []),
  ];
}
