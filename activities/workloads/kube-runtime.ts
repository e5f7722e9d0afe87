// Managed stdio workloads on Kubernetes: per connector a Secret (env and token), a Deployment
// (MCP server + gateway sidecar) and a Service on port 8080, all named after the connector id, so
// that every operation here is idempotent and a crash anywhere is repaired by the next start,
// remove or reconcile. The Deployment owns the other two: deleting it alone would be enough for
// the garbage collector, but remove() deletes all three so nothing waits on the collector.
import { randomBytes } from 'node:crypto';
import type { V1Deployment, V1ObjectMeta, V1OwnerReference } from '@kubernetes/client-node';
import type { Logger } from '../../core/logger';
import type { StdioConfig } from '../../core/schemas';
import { kubeApis, kubeCall, unlessExists, unlessNotFound, type KubeApis } from './kube-api';
import { deploymentManifest, ownerReference, secretManifest, serviceManifest, type ManifestContext } from './kube-manifests';
import { CONNECTOR_ANNOTATION, GATEWAY_SERVICE_ACCOUNT, managedSelector, workloadName, workloadTarget } from './kube-names';
import { waitForReadyPod, watchDeployment } from './kube-workload-status';
import type { StartOptions, WatchResult, WorkloadRuntime, WorkloadSpec } from './runtime';
import { workloadEnv } from './workload-env';

export interface KubeRuntimeOptions {
  namespace: string;
  gatewayImage: string;
  /** A kubeconfig file; default: KUBECONFIG, ~/.kube/config, then the in-cluster service account. */
  kubeconfig?: string;
  logger: Logger;
  /** The service account of the pods (the gateway's RBAC, see deploy/rbac). */
  gatewayServiceAccount?: string;
  readyPollMs?: number;
  watchPollMs?: number;
  /**
   * reconcile() leaves workloads younger than this alone: another worker may be starting one for
   * a connector that is not connected yet. Default 2 minutes.
   */
  reconcileGraceMs?: number;
  apis?: KubeApis;
}

export class KubeRuntime implements WorkloadRuntime {
  private readonly apis: KubeApis;
  private readonly namespace: string;
  /** Starts under way in this process: a second start for the same connector joins the first. */
  private readonly inflight = new Map<string, Promise<{ target: string }>>();

  constructor(private readonly options: KubeRuntimeOptions) {
    this.apis = options.apis ?? kubeApis(options.kubeconfig);
    this.namespace = options.namespace;
  }

  start(spec: WorkloadSpec, options: StartOptions): Promise<{ target: string }> {
    const running = this.inflight.get(spec.connectorId);
    if (running) return running;
    const started = this.startOnce(spec, options).finally(() => this.inflight.delete(spec.connectorId));
    this.inflight.set(spec.connectorId, started);
    return started;
  }

  watch(connectorId: string, options: { heartbeat: () => void; signal: AbortSignal }): Promise<WatchResult> {
    const { namespace } = this;
    const pollMs = this.options.watchPollMs ?? 2_000;
    return watchDeployment(this.apis, { ...options, namespace, name: workloadName(connectorId), pollMs, logger: this.options.logger });
  }

  async remove(connectorId: string): Promise<void> {
    const name = workloadName(connectorId);
    const { namespace } = this;
    const { apps, core } = this.apis;
    // Background: the Deployment goes at once (a reconnect can reuse the name) and the garbage
    // collector removes its ReplicaSet and pods after it.
    await Promise.all([
      unlessNotFound(`delete Deployment ${name}`, () =>
        apps.deleteNamespacedDeployment({ name, namespace, propagationPolicy: 'Background' })),
      unlessNotFound(`delete Service ${name}`, () => core.deleteNamespacedService({ name, namespace })),
      unlessNotFound(`delete Secret ${name}`, () => core.deleteNamespacedSecret({ name, namespace })),
    ]);
    this.options.logger.info({ connectorId, name }, 'kubernetes stdio workload removed');
  }

  async reconcile(isConnected: (connectorId: string) => Promise<boolean>): Promise<string[]> {
    const graceMs = this.options.reconcileGraceMs ?? 120_000;
    const removed: string[] = [];
    for (const [connectorId, createdAt] of await this.managedConnectors()) {
      if (this.inflight.has(connectorId) || Date.now() - createdAt < graceMs) continue;
      if (await isConnected(connectorId)) continue;
      await this.remove(connectorId);
      removed.push(connectorId);
    }
    return removed;
  }

  async close(): Promise<void> {
    // Nothing held open: the clients make one request at a time, and workloads outlive the worker.
  }

  private async startOnce(spec: WorkloadSpec, options: StartOptions): Promise<{ target: string }> {
    const ctx = this.context(spec.connectorId);
    const env = workloadEnv(spec.stdio, spec.token);
    secretManifest(ctx, env); // A spec error surfaces before anything is created.
    const started = Date.now();
    try {
      const deployment = await this.ensureObjects(ctx, spec.stdio, env);
      options.heartbeat?.();
      await waitForReadyPod(this.apis, deployment, {
        limitMs: options.readinessTimeoutMs,
        timeoutMs: Math.max(0, options.readinessTimeoutMs - (Date.now() - started)),
        pollMs: this.options.readyPollMs ?? 250,
        heartbeat: options.heartbeat,
        signal: options.signal,
      });
    } catch (error) {
      // Whatever was created (or half-created by an earlier attempt) goes: the connector is not
      // connected, and the next start begins from nothing.
      await this.remove(spec.connectorId).catch((e: Error) =>
        this.options.logger.error({ connectorId: spec.connectorId, err: e.message }, 'rollback of the workload failed'));
      throw error;
    }
    const target = workloadTarget(spec.connectorId, this.namespace);
    this.options.logger.info({ connectorId: spec.connectorId, target, ms: Date.now() - started }, 'kubernetes stdio workload ready');
    return { target };
  }

  /** The Deployment, with its Secret and Service: reused where they exist, created where not. */
  private async ensureObjects(ctx: ManifestContext, stdio: StdioConfig, env: Record<string, string>): Promise<V1Deployment> {
    const name = workloadName(ctx.connectorId);
    const { namespace } = this;
    const { apps, core } = this.apis;
    let existing = await unlessNotFound(`read Deployment ${name}`, () => apps.readNamespacedDeployment({ name, namespace }));
    if (existing?.metadata?.deletionTimestamp) throw new Error(`the previous workload ${name} is still being removed`);
    if (existing && !(await this.secretHolds(name, env))) {
      // A connect with a new token (or a changed preset): the running server has the old env,
      // and a server reads its env once, so it is replaced rather than reused.
      this.options.logger.info({ connectorId: ctx.connectorId, name }, 'replacing the workload: its env changed');
      await this.remove(ctx.connectorId);
      existing = undefined;
    }
    if (existing) {
      const owner = ownerReference(existing);
      await unlessExists(`create Secret ${name}`, () => core.createNamespacedSecret({ namespace, body: secretManifest(ctx, env, owner) }));
      await this.ensureService(ctx, owner);
      return existing;
    }
    // The Secret comes first so that the pod never starts without its env; it is owned once the
    // Deployment (and its uid) exists.
    await this.createFreshSecret(ctx, env);
    const body = deploymentManifest(ctx, stdio, Object.keys(env), randomBytes(6).toString('hex'));
    const deployment = await kubeCall(`create Deployment ${name}`, () => apps.createNamespacedDeployment({ namespace, body }));
    const owner = ownerReference(deployment);
    const patch = [{ op: 'add', path: '/metadata/ownerReferences', value: [owner] }];
    await kubeCall(`own Secret ${name}`, () => core.patchNamespacedSecret({ name, namespace, body: patch }));
    await this.ensureService(ctx, owner);
    return deployment;
  }

  /** Whether the workload's Secret exists and holds exactly `env`. */
  private async secretHolds(name: string, env: Record<string, string>): Promise<boolean> {
    const { namespace } = this;
    const secret = await unlessNotFound(`read Secret ${name}`, () => this.apis.core.readNamespacedSecret({ name, namespace }));
    if (!secret) return true; // recreated below with `env`
    const held = Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
    const keys = Object.keys(env);
    return keys.length === Object.keys(held).length && keys.every((k) => held[k] === env[k]);
  }

  /** A Secret left by an earlier attempt may hold other values, or an owner that is gone. */
  private async createFreshSecret(ctx: ManifestContext, env: Record<string, string>): Promise<void> {
    const name = workloadName(ctx.connectorId);
    const { namespace } = this;
    const { core } = this.apis;
    const create = () => core.createNamespacedSecret({ namespace, body: secretManifest(ctx, env) });
    if (await unlessExists(`create Secret ${name}`, create)) return;
    await unlessNotFound(`delete Secret ${name}`, () => core.deleteNamespacedSecret({ name, namespace }));
    await kubeCall(`create Secret ${name}`, create);
  }

  /** A leftover Service owned by an earlier Deployment would be collected: make it ours. */
  private async ensureService(ctx: ManifestContext, owner: V1OwnerReference): Promise<void> {
    const name = workloadName(ctx.connectorId);
    const { namespace } = this;
    const { core } = this.apis;
    const body = serviceManifest(ctx, owner);
    if (await unlessExists(`create Service ${name}`, () => core.createNamespacedService({ namespace, body }))) return;
    const service = await kubeCall(`read Service ${name}`, () => core.readNamespacedService({ name, namespace }));
    if (service.metadata?.ownerReferences?.some((ref) => ref.uid === owner.uid)) return;
    const patch = [{ op: 'add', path: '/metadata/ownerReferences', value: [owner] }];
    await kubeCall(`own Service ${name}`, () => core.patchNamespacedService({ name, namespace, body: patch }));
  }

  /** Connector id → creation time of its newest object, over every kind the runtime creates. */
  private async managedConnectors(): Promise<Map<string, number>> {
    const { namespace } = this;
    const labelSelector = managedSelector;
    const { apps, core } = this.apis;
    const lists = await Promise.all([
      kubeCall('list Deployments', () => apps.listNamespacedDeployment({ namespace, labelSelector })),
      kubeCall('list Services', () => core.listNamespacedService({ namespace, labelSelector })),
      kubeCall('list Secrets', () => core.listNamespacedSecret({ namespace, labelSelector })),
    ]);
    const newest = new Map<string, number>();
    const items: Array<{ metadata?: V1ObjectMeta }> = lists.flatMap((list) => list.items as Array<{ metadata?: V1ObjectMeta }>);
    for (const item of items) {
      const connectorId = item.metadata?.annotations?.[CONNECTOR_ANNOTATION];
      if (!connectorId) continue;
      const createdAt = item.metadata?.creationTimestamp ? new Date(item.metadata.creationTimestamp).getTime() : Date.now();
      newest.set(connectorId, Math.max(newest.get(connectorId) ?? 0, createdAt));
    }
    return newest;
  }

  private context(connectorId: string): ManifestContext {
    return {
      connectorId,
      namespace: this.namespace,
      gatewayImage: this.options.gatewayImage,
      gatewayServiceAccount: this.options.gatewayServiceAccount ?? GATEWAY_SERVICE_ACCOUNT,
    };
  }
}
