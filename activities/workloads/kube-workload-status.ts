// Observing a workload in the cluster by polling: the readiness wait after creation, and the
// long watch while the connector is connected. Polling keeps it simple and survives API server
// restarts and dropped connections without any resume logic; a few requests a second at most.
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import type { Logger } from '../../platform/logger';
import { readinessTimeoutMessage, WorkloadExitedError, WorkloadTimeoutError } from './errors';
import { kubeCall, unlessNotFound, type KubeApis } from './kube-api';
import { CONNECTOR_LABEL, INSTANCE_LABEL, MANAGED_BY_LABEL, instanceSelector } from './kube-names';
import { isPodReady, pendingHint, serverExit } from './kube-pod-status';
import type { WatchResult } from './runtime';
import { pause } from './until-aborted';

export interface ReadyWait {
  /** The limit the message names (the whole start's); timeoutMs is what is left of it. */
  limitMs: number;
  timeoutMs: number;
  pollMs: number;
  heartbeat?: () => void;
  signal?: AbortSignal;
  /** Sees every list of the Deployment's pods (the gateway's Role follows their names). */
  onPods?: (pods: V1Pod[]) => Promise<void>;
}

/** The pods of this Deployment only (not of an earlier one of the same name still terminating). */
export function podSelector(deployment: V1Deployment): string {
  const labels = deployment.spec?.template?.metadata?.labels ?? {};
  const instance = labels[INSTANCE_LABEL];
  if (instance) return instanceSelector(instance);
  return `${MANAGED_BY_LABEL}=${labels[MANAGED_BY_LABEL]},${CONNECTOR_LABEL}=${labels[CONNECTOR_LABEL]}`;
}

/** Resolves once a pod of the Deployment is Ready; WorkloadTimeoutError past the deadline. */
export async function waitForReadyPod(apis: KubeApis, deployment: V1Deployment, wait: ReadyWait): Promise<void> {
  const namespace = deployment.metadata?.namespace ?? 'default';
  const labelSelector = podSelector(deployment);
  const deadline = Date.now() + wait.timeoutMs;
  for (;;) {
    wait.heartbeat?.();
    const pods = await kubeCall('list pods', () => apis.core.listNamespacedPod({ namespace, labelSelector }));
    await wait.onPods?.(pods.items);
    if (pods.items.some(isPodReady)) return;
    const exit = pods.items.map(serverExit).find((reason) => reason !== undefined);
    if (exit) throw new WorkloadExitedError(exit);
    const left = deadline - Date.now();
    if (left <= 0) throw new WorkloadTimeoutError(readinessTimeoutMessage(wait.limitMs, pendingHint(pods.items[0])));
    await pause(Math.min(wait.pollMs, left), wait.signal);
  }
}

export interface WatchOptions {
  namespace: string;
  name: string;
  pollMs: number;
  heartbeat: () => void;
  signal: AbortSignal;
  logger: Logger;
  /** As in ReadyWait: a replaced pod gets its name into the gateway's Role here. */
  onPods?: (pods: V1Pod[]) => Promise<void>;
}

/** 'exited' when the Deployment goes away or the stdio server's container has ended. */
export async function watchDeployment(apis: KubeApis, options: WatchOptions): Promise<WatchResult> {
  const { namespace, name, signal } = options;
  let seen = false;
  for (;;) {
    signal.throwIfAborted();
    options.heartbeat();
    try {
      const deployment = await unlessNotFound(`read Deployment ${name}`, () =>
        apis.apps.readNamespacedDeployment({ name, namespace }));
      if (!deployment || deployment.metadata?.deletionTimestamp) {
        return seen ? { kind: 'exited', reason: 'the workload was removed from the cluster' } : { kind: 'missing' };
      }
      seen = true;
      const labelSelector = podSelector(deployment);
      const pods = await kubeCall('list pods', () => apis.core.listNamespacedPod({ namespace, labelSelector }));
      const exit = pods.items.map(serverExit).find((reason) => reason !== undefined);
      if (exit) return { kind: 'exited', reason: exit };
      await options.onPods?.(pods.items);
    } catch (error) {
      // A passing API server hiccup must not disconnect the connector: keep watching.
      if (signal.aborted) throw signal.reason;
      options.logger.warn({ err: (error as Error).message, name }, 'reading the workload failed; watching on');
    }
    await pause(options.pollMs, signal);
  }
}
