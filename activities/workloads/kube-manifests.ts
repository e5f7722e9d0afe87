// The three objects of a managed stdio workload: a Secret with the server's env (preset values and
// the token), a Deployment whose pod runs the MCP server next to the gateway sidecar, and a
// Service exposing the gateway. Pure functions: kube-runtime.ts sends them.
import type {
  V1Container, V1Deployment, V1EnvVar, V1OwnerReference, V1Secret, V1Service, V1Volume,
} from '@kubernetes/client-node';
import type { StdioConfig } from '../../core/schemas';
import { WorkloadSpecError } from './errors';
import {
  CONNECTOR_ANNOTATION, GATEWAY_CONTAINER, GATEWAY_PORT, INSTANCE_LABEL, SERVER_CONTAINER, workloadLabels, workloadName,
} from './kube-names';

export interface ManifestContext {
  connectorId: string;
  namespace: string;
  gatewayImage: string;
  gatewayServiceAccount: string;
}

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

/** Throws WorkloadSpecError for env names a Secret cannot hold as keys. */
export function secretManifest(ctx: ManifestContext, env: Record<string, string>, owner?: V1OwnerReference): V1Secret {
  for (const name of Object.keys(env)) {
    if (!SECRET_KEY.test(name)) throw new WorkloadSpecError(`the env name "${name}" cannot be a Kubernetes Secret key`);
  }
  return { metadata: { ...metadata(ctx), ownerReferences: owner ? [owner] : undefined }, type: 'Opaque', stringData: env };
}

export function deploymentManifest(ctx: ManifestContext, stdio: StdioConfig, envNames: string[], instance: string): V1Deployment {
  const meta = metadata(ctx);
  const serverEnv: V1EnvVar[] = envNames.map((name) => ({ name, valueFrom: { secretKeyRef: { name: meta.name, key: name } } }));
  return {
    metadata: meta,
    spec: {
      replicas: 1,
      selector: { matchLabels: meta.labels },
      template: {
        metadata: { labels: { ...meta.labels, [INSTANCE_LABEL]: instance }, annotations: meta.annotations },
        spec: {
          serviceAccountName: ctx.gatewayServiceAccount,
          // Only the gateway gets the service account's token (mounted below): the MCP server is
          // third-party code and has no business with the Kubernetes API.
          automountServiceAccountToken: false,
          enableServiceLinks: false,
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
            },
            gatewayContainer(ctx),
          ],
          volumes: [serviceAccountVolume()],
        },
      },
    },
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
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
    ],
    readinessProbe: { httpGet: { path: '/healthz', port: GATEWAY_PORT }, periodSeconds: 2, failureThreshold: 1 },
    volumeMounts: [{ name: 'gateway-token', mountPath: SERVICE_ACCOUNT_DIR, readOnly: true }],
    securityContext: { allowPrivilegeEscalation: false },
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
