// The toolset MCP endpoint on its own (no registry), as the proxy role serves it: a node http server
// in front of createToolsetEndpoint, a mutable route table standing in for the connector workflows,
// toolsets and member states in memory, and caller authentication by API keys (alice, bob, an admin).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAuthenticator } from '../../callers/authenticator';
import { sha256Hex } from '../../callers/api-keys';
import { createLogger } from '../../platform/logger';
import type { ToolsetRecord } from '../../contract/toolset-record';
import { CallerGate } from '../../proxy/caller-gate';
import type { Route, RouteSource } from '../../proxy/route';
import { createToolsetEndpoint, type ToolsetEndpoint, type ToolsetEndpointOptions } from '../../proxy/toolset/toolset-endpoint';
import { toolsetIdFromPath } from '../../proxy/toolset/toolset-path';
import type { SessionStore } from '../../proxy/toolset/session-store';
import type { MemberStatus } from '../../proxy/toolset/toolset-source';

export const KEYS = { alice: 'harness-key-alice-7d1e', bob: 'harness-key-bob-2c9a', admin: 'harness-key-admin-5f3b' } as const;
export const auth = (who: keyof typeof KEYS = 'alice') => ({ authorization: `Bearer ${KEYS[who]}` });

export interface ToolsetHarness {
  base: string;
  urlOf(toolsetId: string): string;
  routes: Map<string, Route>;
  toolsets: Map<string, ToolsetRecord>;
  statuses: Map<string, MemberStatus>;
  endpoint: ToolsetEndpoint;
  close(): Promise<void>;
}

export const connectedTo = (target: string, token: string, owner = 'key:alice'): Route => ({ kind: 'connected', target, token, sealedToken: `sealed-${token}`, owner });

/** `shared`: another harness's tables (a second replica); `sessions`: where 2025 sessions are kept (default: in memory). */
export async function startToolsetHarness(options: Partial<ToolsetEndpointOptions> = {}, shared?: Pick<ToolsetHarness, 'routes' | 'toolsets' | 'statuses'>, sessions?: SessionStore): Promise<ToolsetHarness> {
  const routes = shared?.routes ?? new Map<string, Route>();
  const toolsets = shared?.toolsets ?? new Map<string, ToolsetRecord>();
  const statuses = shared?.statuses ?? new Map<string, MemberStatus>();
  const source: RouteSource = { get: async (id) => routes.get(id) ?? { kind: 'not_found' } };
  const authenticator = createAuthenticator({
    enabled: true, jwt: null,
    apiKeys: [
      { subject: 'alice', sha256: sha256Hex(KEYS.alice), admin: false },
      { subject: 'bob', sha256: sha256Hex(KEYS.bob), admin: false },
      { subject: 'root', sha256: sha256Hex(KEYS.admin), admin: true },
    ],
  }, fetch);
  let endpoint: ToolsetEndpoint | undefined;
  const server = http.createServer((req, res) => {
    const id = toolsetIdFromPath(req.url ?? '/');
    if (id && endpoint) endpoint.handle(req, res, id);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  endpoint = createToolsetEndpoint({
    routes: source, policy: { blockPrivateNetworks: false }, logger: createLogger('toolset-test', process.env.LOG_LEVEL ?? 'silent'),
    callers: new CallerGate({ authenticator, baseUrl: base, maxStreamsPerOwner: 64 }),
    source: { toolset: async (id) => toolsets.get(id) ?? null, memberStatus: async (id) => statuses.get(id) ?? null, sessions },
    ...options,
  });
  return {
    base, routes, toolsets, statuses, endpoint,
    urlOf: (toolsetId) => `${base}/api/v1/toolsets/${toolsetId}/mcp`,
    async close() {
      await endpoint!.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A toolset of alice's with the given members (prefix → connector id), every tool allowed. */
export function toolsetOf(id: string, members: Record<string, string>, extra: Partial<ToolsetRecord> = {}): ToolsetRecord {
  return {
    id, name: 'harness', description: '', created_by: 'key:alice', created_at: '', updated_at: '1', access: [],
    members: Object.entries(members).map(([prefix, connector_id]) => ({ connector_id, prefix, tools: { allow: ['*'], deny: [] } })),
    ...extra,
  };
}
