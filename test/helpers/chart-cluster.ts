// The shape the Helm chart runs, on one machine: two replicas of each role as processes of their
// own from dist/ (what the image runs), on one Temporal and one FerretDB, with the same BASE_URL,
// key and API keys, behind a per-request round-robin balancer (round-robin-balancer.ts) that plays
// the Ingress and the Services. BASE_URL is the balancer's, so mcp_url and the OAuth callback lead
// through it. Callers are authenticated (API keys), so the per-owner limits apply.
import type { ExecutionContext } from 'ava';
import { sha256Hex } from '../../callers/api-keys';
import { startBalancer, type Balancer } from './round-robin-balancer';
import { startSplitProcesses } from './split-processes';
import { portOf, type StackProcess } from './stack-process';
import { apiClient, type ApiCall } from './test-stack';

export type Role = 'api' | 'proxy' | 'worker';

export interface ChartCluster {
  balancer: Balancer;
  replicas: Record<Role, StackProcess[]>;
  /** The REST API through the balancer, as `key`'s owner. */
  api(key: string): ApiCall;
  /** `Authorization` for `key`. */
  auth(key: string): Record<string, string>;
  /** Another replica of `role` (one killed is replaced), taking its place in the balancer's pool. */
  replace(role: Role, index: number): Promise<StackProcess>;
}

/** `keys`: API key → subject (owner `key:<subject>`). */
export async function startChartCluster(t: ExecutionContext, keys: Record<string, string>, env: Record<string, string> = {}): Promise<ChartCluster> {
  // The balancer binds its port before the replicas start, since BASE_URL names it: a port picked
  // and bound only after they were up was once taken meanwhile (EADDRINUSE in CI).
  const balancer = await startBalancer({ api: [], proxy: [] });
  t.teardown(() => balancer.close());
  const split = await startSplitProcesses(t, {
    BASE_URL: balancer.url,
    CONNECTOR__API_KEYS: JSON.stringify(Object.entries(keys).map(([key, subject]) => ({ subject, sha256: sha256Hex(key), admin: false }))),
    CONNECTOR__BLOCK_PRIVATE_NETWORKS: 'false',
    CONNECTOR__CONNECT_TIMEOUT_MS: '30000',
    ...env,
  });
  const counts: Record<Role, number> = { api: 0, proxy: 0, worker: 0 };
  const startRole = (role: Role) => split.start(`dist/${role}.mjs`, `${role}-${++counts[role]}`);
  // Workers first: an API's readiness does not wait for them, a connect does.
  const replicas: Record<Role, StackProcess[]> = { worker: [], api: [], proxy: [] };
  for (const role of ['worker', 'api', 'proxy'] as const) replicas[role] = await Promise.all([startRole(role), startRole(role)]);
  balancer.pools.api.push(...replicas.api.map(portOf));
  balancer.pools.proxy.push(...replicas.proxy.map(portOf));
  const auth = (key: string) => ({ authorization: `Bearer ${key}` });
  return {
    balancer,
    replicas,
    auth,
    api: (key) => {
      const call = apiClient(balancer.url);
      return (method, path, body, headers = {}) => call(method, path, body, { ...auth(key), ...headers });
    },
    async replace(role, index) {
      const replica = await startRole(role);
      replicas[role][index] = replica;
      if (role !== 'worker') balancer.pools[role][index] = portOf(replica);
      return replica;
    },
  };
}
