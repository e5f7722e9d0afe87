// How a workload's pod is locked down: both containers run as a fixed non-root user with a
// read-only root filesystem, no capabilities, no privilege escalation and the runtime's default
// seccomp profile. Each container gets its own emptyDir for /tmp: a shared one would let the MCP
// server (third-party code) plant files that the gateway (which holds an API token) later reads,
// such as tsx's compile cache.
import type { V1PodSecurityContext, V1SecurityContext, V1Volume, V1VolumeMount } from '@kubernetes/client-node';

/** The conventional "nonroot" user of distroless images: no image's root, no host user. */
export const WORKLOAD_UID = 65532;

export const SERVER_SCRATCH = { volume: 'server-tmp', sizeLimit: '256Mi' } as const;
export const GATEWAY_SCRATCH = { volume: 'gateway-tmp', sizeLimit: '64Mi' } as const;
export const SCRATCH_PATH = '/tmp';

export function podSecurityContext(): V1PodSecurityContext {
  return {
    runAsNonRoot: true,
    runAsUser: WORKLOAD_UID,
    runAsGroup: WORKLOAD_UID,
    fsGroup: WORKLOAD_UID,
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

export function containerSecurityContext(): V1SecurityContext {
  return {
    runAsNonRoot: true,
    runAsUser: WORKLOAD_UID,
    runAsGroup: WORKLOAD_UID,
    readOnlyRootFilesystem: true,
    allowPrivilegeEscalation: false,
    privileged: false,
    capabilities: { drop: ['ALL'] },
  };
}

export function scratchVolume(scratch: { volume: string; sizeLimit: string }): V1Volume {
  return { name: scratch.volume, emptyDir: { sizeLimit: scratch.sizeLimit } };
}

export function scratchMount(scratch: { volume: string }): V1VolumeMount {
  return { name: scratch.volume, mountPath: SCRATCH_PATH };
}
