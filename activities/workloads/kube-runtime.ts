// Managed stdio workloads on Kubernetes: per connector a Deployment (MCP server + gateway
// sidecar) and the objects it owns (kube-dependents.ts: Secret with the env and the gateway's
// secret, the gateway's ServiceAccount, Role and RoleBinding, Service, NetworkPolicy), all named
// after the connector id, so that every operation here is idempotent and a crash anywhere is
// repaired by the next start, remove or reconcile. Deleting the Deployment alone would be enough
// for the garbage collector, but remove() deletes everything so nothing waits on the collector.
import { randomBytes } from 'node:crypto';
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { DEFAULT_KUBE_PROXY_NAMESPACE_SELECTOR, DEFAULT_KUBE_PROXY_SELECTOR, parseLabelSelector } from '../../platform/kube-labels';
import type { Logger } from '../../platform/logger';
import { DEFAULT_GATEWAY_MAX_SESSIONS } from '../../platform/server-limits';
import type { StdioConfig } from '../../contract/schemas';
import { defaultWorkloadEgress, outermost, parseWorkloadNetworks, type WorkloadEgress } from '../../platform/workload-egress';
import { gatewayRules } from './kube-access-manifests';
import { kubeApis, kubeCall, unlessNotFound, type KubeApis } from './kube-api';
import { DEPENDENTS, ensureDependent, removeDependents } from './kube-dependents';
import {
  checkEnvNames, deploymentManifest, ownerReference, workloadHash, workloadPodSpec, type ManifestContext,
} from './kube-manifests';
import {
  CONNECTOR_ANNOTATION, GATEWAY_SECRET_KEY, TEMPLATE_HASH_ANNOTATION, managedSelector, workloadName, workloadTarget,
} from './kube-names';
import { waitForReadyPod, watchDeployment } from './kube-workload-status';
import { newGatewaySecret } from './gateway-secret';
import type { StartedRuntimeWorkload, StartOptions, WatchResult, WorkloadRuntime, WorkloadSpec } from './runtime';
import { workloadEnv } from './workload-env';

export interface KubeRuntimeOptions {
  namespace: string;
  gatewayImage: string;
  /** A kubeconfig file; default: KUBECONFIG, ~/.kube/config, then the in-cluster service account. */
  kubeconfig?: string;
  logger: Logger;
  /** Open MCP sessions each gateway serves at once; default 256. */
  gatewayMaxSessions?: number;
  /** matchLabels of the proxy pods and their namespace; default: the config defaults. */
  proxySelector?: Record<string, string>;
  proxyNamespaceSelector?: Record<string, string>;
  /** What workloads may reach; default: the config defaults (no private network, the kube-dns pods). */
  egress?: WorkloadEgress;
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
  readonly sharesHostNetwork = false;
  private readonly apis: KubeApis;
  private readonly namespace: string;
  /** Starts under way in this process: a second start for the same connector joins the first. */
  private readonly inflight = new Map<string, Promise<StartedRuntimeWorkload>>();
  /** Connector id → the pod names its gateway's Role holds, as last written by this process. */
  private readonly rolePods = new Map<string, string>();

  constructor(private readonly options: KubeRuntimeOptions) {
    this.apis = options.apis ?? kubeApis(options.kubeconfig);
    this.namespace = options.namespace;
  }

  start(spec: WorkloadSpec, options: StartOptions): Promise<StartedRuntimeWorkload> {
    const running = this.inflight.get(spec.connectorId);
    if (running) return running;
    const started = this.startOnce(spec, options).finally(() => this.inflight.delete(spec.connectorId));
    this.inflight.set(spec.connectorId, started);
    return started;
  }

  watch(connectorId: string, options: { heartbeat: () => void; signal: AbortSignal }): Promise<WatchResult> {
    const { namespace } = this;
    const pollMs = this.options.watchPollMs ?? 2_000;
    const onPods = (pods: V1Pod[]) => this.followPods(connectorId, pods);
    return watchDeployment(this.apis, {
      ...options, namespace, name: workloadName(connectorId), pollMs, logger: this.options.logger, onPods,
    });
  }

  async remove(connectorId: string): Promise<void> {
    const name = workloadName(connectorId);
    const { namespace } = this;
    this.rolePods.delete(connectorId);
    // Background: the Deployment goes at once (a reconnect can reuse the name) and the garbage
    // collector removes its ReplicaSet and pods after it.
    await Promise.all([
      unlessNotFound(`delete Deployment ${name}`, () =>
        this.apis.apps.deleteNamespacedDeployment({ name, namespace, propagationPolicy: 'Background' })),
      ...removeDependents(this.apis, namespace, name),
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

  private async startOnce(spec: WorkloadSpec, options: StartOptions): Promise<StartedRuntimeWorkload> {
    const ctx = this.context(spec.connectorId, spec.stdio);
    const env = workloadEnv(spec);
    checkEnvNames(env); // A spec error surfaces before anything is created.
    const started = Date.now();
    let gatewaySecret: string;
    try {
      const ensured = await this.ensureObjects(ctx, spec.stdio, env);
      const { deployment } = ensured;
      gatewaySecret = ensured.gatewaySecret;
      options.heartbeat?.();
      await waitForReadyPod(this.apis, deployment, {
        limitMs: options.readinessTimeoutMs,
        timeoutMs: Math.max(0, options.readinessTimeoutMs - (Date.now() - started)),
        pollMs: this.options.readyPollMs ?? 250,
        heartbeat: options.heartbeat,
        signal: options.signal,
        onPods: (pods) => this.followPods(spec.connectorId, pods),
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
    return { target, gatewaySecret };
  }

  /**
   * The Deployment and what it owns: reused where they exist, created where not; and the secret
   * its gateway was (or will be) started with.
   */
  private async ensureObjects(
    ctx: ManifestContext, stdio: StdioConfig, env: Record<string, string>,
  ): Promise<{ deployment: V1Deployment; gatewaySecret: string }> {
    const name = workloadName(ctx.connectorId);
    const { namespace } = this;
    const { apps } = this.apis;
    let existing = await unlessNotFound(`read Deployment ${name}`, () => apps.readNamespacedDeployment({ name, namespace }));
    if (existing?.metadata?.deletionTimestamp) throw new Error(`the previous workload ${name} is still being removed`);
    const reuse = existing ? await this.reuse(existing, ctx, stdio, env) : { gatewaySecret: null };
    if ('reason' in reuse) {
      // A server reads its env once, and a pod spec is fixed: such a workload is replaced, not reused.
      this.options.logger.info({ connectorId: ctx.connectorId, name }, `replacing the workload: ${reuse.reason}`);
      await this.remove(ctx.connectorId);
      existing = undefined;
    }
    // A running gateway keeps the secret it was started with; a new pod's gateway gets a new one.
    const gatewaySecret = (existing && 'gatewaySecret' in reuse ? reuse.gatewaySecret : null) ?? newGatewaySecret();
    // A new Deployment has no replicas until its Secret and service account exist, owned by it.
    const deployment = existing ?? await kubeCall(`create Deployment ${name}`, () => apps.createNamespacedDeployment({
      namespace, body: deploymentManifest(ctx, stdio, Object.keys(env), randomBytes(6).toString('hex')),
    }));
    const owner = ownerReference(deployment);
    for (const dependent of DEPENDENTS) {
      const created = await ensureDependent(this.apis, dependent, ctx, owner, { env, gatewaySecret });
      if (created && dependent.kind === 'Role') this.rolePods.delete(ctx.connectorId);
    }
    if (deployment.spec?.replicas === 1) return { deployment, gatewaySecret };
    const scale = [{ op: 'replace', path: '/spec/replicas', value: 1 }];
    const scaled = await kubeCall(`scale Deployment ${name}`, () => apps.patchNamespacedDeployment({ name, namespace, body: scale }));
    return { deployment: scaled, gatewaySecret };
  }

  /**
   * Why an existing Deployment cannot serve this start, or the gateway secret its pod was started
   * with (null: it has no pod yet, so a new secret will do).
   */
  private async reuse(
    existing: V1Deployment, ctx: ManifestContext, stdio: StdioConfig, env: Record<string, string>,
  ): Promise<{ reason: string } | { gatewaySecret: string | null }> {
    const wanted = workloadHash(ctx, workloadPodSpec(ctx, stdio, Object.keys(env)));
    if (existing.metadata?.annotations?.[TEMPLATE_HASH_ANNOTATION] !== wanted) return { reason: 'its pod spec or network policy changed' };
    const held = await this.secretValues(workloadName(ctx.connectorId));
    // Still at no replicas (a start stopped before its Secret): no gateway has read a secret yet.
    if (!held) return existing.spec?.replicas === 0 ? { gatewaySecret: null } : { reason: 'its Secret is gone' };
    const { [GATEWAY_SECRET_KEY]: gatewaySecret, ...values } = held;
    const keys = Object.keys(env);
    if (keys.length !== Object.keys(values).length || !keys.every((k) => values[k] === env[k])) return { reason: 'its env changed' };
    // Without it, its gateway holds a secret nobody knows any more.
    if (!gatewaySecret) return { reason: 'its Secret holds no gateway secret' };
    return { gatewaySecret };
  }

  /** The workload Secret's values, decoded; undefined when there is no Secret. */
  private async secretValues(name: string): Promise<Record<string, string> | undefined> {
    const { namespace } = this;
    const secret = await unlessNotFound(`read Secret ${name}`, () => this.apis.core.readNamespacedSecret({ name, namespace }));
    if (!secret) return undefined;
    return Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
  }

  /**
   * Writes the names of the workload's live pods into its gateway's Role, so that the gateway of
   * a new or replaced pod may attach to it (and to nothing else). Each gateway retries its attach
   * by restarting, so a pod seen a moment after its gateway started costs one restart at most.
   */
  private async followPods(connectorId: string, pods: V1Pod[]): Promise<void> {
    const names = pods.filter((pod) => !pod.metadata?.deletionTimestamp).map((pod) => pod.metadata?.name ?? '').filter(Boolean).sort();
    const key = names.join(',');
    if (names.length === 0 || this.rolePods.get(connectorId) === key) return;
    const name = workloadName(connectorId);
    const { namespace } = this;
    const body = [{ op: 'add', path: '/rules', value: gatewayRules(names) }];
    await kubeCall(`name the pods in Role ${name}`, () => this.apis.rbac.patchNamespacedRole({ name, namespace, body }));
    this.rolePods.set(connectorId, key);
  }

  /**
   * Connector id → creation time of its Deployment. Only Deployments are listed: everything else
   * is created owned by one and goes with it, so the worker needs no right to list Secrets.
   */
  private async managedConnectors(): Promise<Map<string, number>> {
    const { namespace } = this;
    const list = await kubeCall('list Deployments', () =>
      this.apis.apps.listNamespacedDeployment({ namespace, labelSelector: managedSelector }));
    const created = new Map<string, number>();
    for (const item of list.items) {
      const connectorId = item.metadata?.annotations?.[CONNECTOR_ANNOTATION];
      if (!connectorId) continue;
      const createdAt = item.metadata?.creationTimestamp ? new Date(item.metadata.creationTimestamp).getTime() : Date.now();
      created.set(connectorId, createdAt);
    }
    return created;
  }

  private context(connectorId: string, stdio: StdioConfig): ManifestContext {
    const deployment = this.options.egress ?? defaultWorkloadEgress();
    const allowed = parseWorkloadNetworks(stdio.allowed_networks ?? []);
    return {
      connectorId,
      namespace: this.namespace,
      gatewayImage: this.options.gatewayImage,
      gatewayMaxSessions: this.options.gatewayMaxSessions ?? DEFAULT_GATEWAY_MAX_SESSIONS,
      proxySelector: this.options.proxySelector ?? parseLabelSelector(DEFAULT_KUBE_PROXY_SELECTOR),
      proxyNamespaceSelector: this.options.proxyNamespaceSelector ?? parseLabelSelector(DEFAULT_KUBE_PROXY_NAMESPACE_SELECTOR),
      egress: { ...deployment, allowedNetworks: outermost([...deployment.allowedNetworks, ...allowed]) },
      internet: stdio.internet === true,
    };
  }
}
