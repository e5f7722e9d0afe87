// Reading a managed pod's status: is it ready, has the stdio server ended (and why), and what is
// it waiting for (a hint for the readiness-timeout message). Pure functions over V1Pod.
import type { V1ContainerStateTerminated, V1Pod } from '@kubernetes/client-node';
import { SERVER_CONTAINER } from './kube-names';

export function isPodReady(pod: V1Pod): boolean {
  if (pod.metadata?.deletionTimestamp) return false;
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/**
 * Why the stdio server is gone, or undefined while it runs. A Deployment's pod restarts ended
 * containers, so an earlier ending (lastState) counts too: the session state of the MCP server is
 * lost either way, and the connector must say so.
 */
export function serverExit(pod: V1Pod): string | undefined {
  const status = pod.status?.containerStatuses?.find((c) => c.name === SERVER_CONTAINER);
  if (!status) return undefined;
  const terminated = status.state?.terminated ?? (status.restartCount > 0 ? status.lastState?.terminated : undefined);
  return terminated ? terminationReason(terminated) : undefined;
}

function terminationReason(terminated: V1ContainerStateTerminated): string {
  const base = terminated.signal
    ? `stdio server was killed by signal ${terminated.signal}`
    : `stdio server exited with code ${terminated.exitCode}`;
  // "Error" and "Completed" restate the code; "OOMKilled" and friends add to it.
  const reason = terminated.reason && !['Error', 'Completed'].includes(terminated.reason) ? terminated.reason : undefined;
  return reason ? `${base} (${reason})` : base;
}

/** What keeps the pod from being ready, in a few words; undefined when nothing is known. */
export function pendingHint(pod: V1Pod | undefined): string | undefined {
  if (!pod) return 'no pod was created';
  const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status === 'False') return `pod not scheduled: ${scheduled.reason ?? 'unknown reason'}`;
  for (const container of pod.status?.containerStatuses ?? []) {
    const waiting = container.state?.waiting?.reason;
    if (waiting) return `container ${container.name}: ${waiting}`;
  }
  return undefined;
}
