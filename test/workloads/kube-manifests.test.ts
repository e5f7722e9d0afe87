// The workload manifests as pure functions: the gateway secret sits in the workload's Secret and
// reaches the gateway container only, by reference; the MCP server container never sees it.
import test from 'ava';
import { deploymentManifest, secretManifest, type ManifestContext } from '../../activities/workloads/kube-manifests';
import { WorkloadSpecError } from '../../activities/workloads/errors';
import { defaultWorkloadEgress } from '../../platform/workload-egress';

const ctx: ManifestContext = {
  connectorId: '0b7c1f7e-8a4e-4d53-9d0e-3c2f0f6a1b2c', namespace: 'tools', gatewayImage: 'gateway:test', gatewayMaxSessions: 256,
  proxySelector: { app: 'proxy' }, proxyNamespaceSelector: { 'kubernetes.io/metadata.name': 'registry' },
  egress: defaultWorkloadEgress(),
};
const name = `mcp-${ctx.connectorId}`;
const SECRET = 'g'.repeat(43);

test('the Secret holds the env values and the gateway secret under a key of its own', (t) => {
  const secret = secretManifest(ctx, { API_HOST: 'api.example', API_TOKEN: 'tok' }, SECRET);
  t.deepEqual(secret.stringData, { API_HOST: 'api.example', API_TOKEN: 'tok', '.gateway-secret': SECRET });
  t.false(JSON.stringify(secret.metadata).includes(SECRET));
});

test('only the gateway container refers to the gateway secret, and only by reference', (t) => {
  const deployment = deploymentManifest(ctx, { image: 'mcp/server:1', command: ['server'] }, ['API_HOST', 'API_TOKEN'], 'abc123');
  const [server, gateway] = deployment.spec!.template.spec!.containers;
  t.is(server!.name, 'mcp-server');
  t.deepEqual(server!.env!.filter((e) => e.valueFrom).map((e) => e.valueFrom?.secretKeyRef?.key), ['API_HOST', 'API_TOKEN']);
  t.falsy(server!.envFrom);
  t.is(gateway!.name, 'gateway');
  const fromSecret = gateway!.env!.filter((e) => e.valueFrom?.secretKeyRef);
  t.deepEqual(fromSecret, [{ name: 'GATEWAY_SECRET', valueFrom: { secretKeyRef: { name, key: '.gateway-secret' } } }]);
  t.false(JSON.stringify(deployment).includes(SECRET));
});

test('an env name equal to the gateway secret key is refused before anything is created', (t) => {
  t.throws(() => secretManifest(ctx, { '.gateway-secret': 'mine' }, SECRET), {
    instanceOf: WorkloadSpecError, message: 'the env name ".gateway-secret" is reserved for the gateway',
  });
});
