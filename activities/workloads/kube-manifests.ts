// The main objects of a managed stdio workload: a Secret with the server's env (preset values and
// the token) and the gateway's secret, a Deployment whose pod runs the MCP server next to the
// gateway sidecar, and a Service exposing the gateway (the gateway's access rights and the
// NetworkPolicy have files of their own). Pure functions: kube-runtime.ts sends them.
import { createHash } from 'node:crypto';
import type {
  V1Container, V1Deployment, V1EnvVar, V1OwnerReference, V1PodSpec, V1Secret, V1Service, V1Volume,
} from '@kubernetes/client-node';
import type { StdioConfig } from '../../contract/schemas';
import { WorkloadSpecError } from './errors';
import type { ManifestContext } from './kube-context';
import {
  CONNECTOR_ANNOTATION, GATEWAY_CONTAINER, GATEWAY_PORT, GATEWAY_SECRET_KEY, INSTANCE_LABEL, SERVER_CONTAINER,
  TEMPLATE_HASH_ANNOTATION, workloadLabels, workloadName,
} from './kube-names';
import {
  GATEWAY_SCRATCH, SCRATCH_PATH, SERVER_SCRATCH, containerSecurityContext, podSecurityContext, scratchMount, scratchVolume,
} from './kube-pod-security';
import { gatewayResources, serverResources } from './kube-resources';
import { networkPolicySpec } from './kube-network-policy';

export type { ManifestContext } from './kube-context';

// Where client libraries (the gateway's included) look for the in-cluster credentials.
const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
const SECRET_KEY = /^[-._a-zA-Z0-9]+$/;

function metadata(ctx: ManifestContext) {
  return {
    name: workloadName(ctx.connectorId),
    namespace: ctx.namespace,
    labels: workloadLabels(ctx.connectorId),
    annotations: { [CONNECTOR_ANNOTATION]: ctx.connectorId },
  };
}

/** Throws WorkloadSpecError for env names the workload's Secret cannot hold as keys of their own. */
export function checkEnvNames(env: Record<string, string>): void {
  for (const name of Object.keys(env)) {
    if (!SECRET_KEY.test(name)) throw new WorkloadSpecError(`the env name "${name}" cannot be a Kubernetes Secret key`);
    if (name === GATEWAY_SECRET_KEY) throw new WorkloadSpecError(`the env name "${name}" is reserved for the gateway`);
  }
}

export function secretManifest(ctx: ManifestContext, env: Record<string, string>, gatewaySecret: string, owner?: V1OwnerReference): V1Secret {
  checkEnvNames(env);
  const stringData = { ...env, [GATEWAY_SECRET_KEY]: gatewaySecret };
  return { metadata: { ...metadata(ctx), ownerReferences: owner ? [owner] : undefined }, type: 'Opaque', stringData };
}

/**
 * Created with no replicas: kube-runtime.ts scales it to one once the objects its pod needs (the
 * Secret, the service account) exist and are owned by it.
 */
export function deploymentManifest(ctx: ManifestContext, stdio: StdioConfig, envNames: string[], instance: string): V1Deployment {
  const meta = metadata(ctx);
  const podSpec = workloadPodSpec(ctx, stdio, envNames);
  return {
    metadata: { ...meta, annotations: { ...meta.annotations, [TEMPLATE_HASH_ANNOTATION]: workloadHash(ctx, podSpec) } },
    spec: {
      replicas: 0,
      selector: { matchLabels: meta.labels },
      template: {
        metadata: { labels: { ...meta.labels, [INSTANCE_LABEL]: instance }, annotations: meta.annotations },
        spec: podSpec,
      },
    },
  };
}

/**
 * A Deployment whose pod spec differs (another image, other resources, an older runtime) is
 * replaced; so is one whose NetworkPolicy would differ (other egress settings, an older runtime's
 * wider policy): an existing policy is kept as it is, so a workload started under another policy
 * must not be reused.
 */
export function workloadHash(ctx: ManifestContext, podSpec: V1PodSpec): string {
  return createHash('sha256').update(JSON.stringify({ podSpec, networkPolicy: networkPolicySpec(ctx) })).digest('hex').slice(0, 32);
}

export function workloadPodSpec(ctx: ManifestContext, stdio: StdioConfig, envNames: string[]): V1PodSpec {
  const name = workloadName(ctx.connectorId);
  const serverEnv: V1EnvVar[] = envNames.map((key) => ({ name: key, valueFrom: { secretKeyRef: { name, key } } }));
  // The root filesystem is read-only and the user has no home directory in most images: tools
  // that write under $HOME (npm's cache, for one) get the scratch volume, unless the preset says.
  if (!envNames.includes('HOME')) serverEnv.push({ name: 'HOME', value: SCRATCH_PATH });
  return {
    serviceAccountName: name,
    // Only the gateway gets the service account's token (mounted below): the MCP server is
    // third-party code and has no business with the Kubernetes API.
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    securityContext: podSecurityContext(),
    containers: [
      {
        name: SERVER_CONTAINER,
        image: stdio.image,
        command: stdio.command,
        args: stdio.args,
        env: serverEnv,
        // The gateway attaches to this stdin; stdinOnce would close it after the first attach.
        stdin: true,
        stdinOnce: false,
        tty: false,
        resources: serverResources(stdio.resources),
        securityContext: containerSecurityContext(),
        volumeMounts: [scratchMount(SERVER_SCRATCH)],
      },
      gatewayContainer(ctx),
    ],
    volumes: [serviceAccountVolume(), scratchVolume(SERVER_SCRATCH), scratchVolume(GATEWAY_SCRATCH)],
  };
}

function gatewayContainer(ctx: ManifestContext): V1Container {
  return {
    name: GATEWAY_CONTAINER,
    image: ctx.gatewayImage,
    ports: [{ name: 'http', containerPort: GATEWAY_PORT }],
    env: [
      { name: 'GATEWAY_SOURCE', value: 'attach' },
      { name: 'GATEWAY_PORT', value: String(GATEWAY_PORT) },
      { name: 'GATEWAY_TARGET_CONTAINER', value: SERVER_CONTAINER },
      { name: 'GATEWAY_MAX_SESSIONS', value: String(ctx.gatewayMaxSessions) },
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      // The MCP server container never refers to this key: the server cannot drive its own gateway.
      { name: 'GATEWAY_SECRET', valueFrom: { secretKeyRef: { name: workloadName(ctx.connectorId), key: GATEWAY_SECRET_KEY } } },
    ],
    readinessProbe: { httpGet: { path: '/healthz', port: GATEWAY_PORT }, periodSeconds: 2, failureThreshold: 1 },
    volumeMounts: [{ name: 'gateway-token', mountPath: SERVICE_ACCOUNT_DIR, readOnly: true }, scratchMount(GATEWAY_SCRATCH)],
    resources: gatewayResources(),
    securityContext: containerSecurityContext(),
  };
}

/** What Kubernetes would automount, limited to the gateway container. */
function serviceAccountVolume(): V1Volume {
  return {
    name: 'gateway-token',
    projected: {
      sources: [
        { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  };
}

export function serviceManifest(ctx: ManifestContext, owner: V1OwnerReference): V1Service {
  const meta = metadata(ctx);
  return {
    metadata: { ...meta, ownerReferences: [owner] },
    spec: {
      type: 'ClusterIP',
      selector: meta.labels,
      ports: [{ name: 'http', port: GATEWAY_PORT, targetPort: GATEWAY_PORT, protocol: 'TCP' }],
    },
  };
}

/** Makes the Deployment the owner: deleting it lets the garbage collector take the rest. */
export function ownerReference(deployment: V1Deployment): V1OwnerReference {
  const { name, uid } = deployment.metadata ?? {};
  if (!name || !uid) throw new Error('a Deployment read from the API has a name and a uid');
  return { apiVersion: 'apps/v1', kind: 'Deployment', name, uid };
}
