// Which protocol era the stdio server speaks, found out once at start-up and never assumed: a
// `server/discover` at the 2026-07-28 revision first (a modern server must answer it), and the
// 2025 `initialize` handshake when the server refuses it, does not know it, or stays silent.
// The SDK's own client probes the same way on stdio (versionNegotiation 'auto').
import {
  InitializeResultSchema,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type ClientCapabilities,
  type Implementation,
  type Result,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  MODERN_REVISION,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
} from './modern-wire';

/** What the gateway learnt about the stdio server, whichever era it speaks. */
export interface ChildServer {
  era: 'legacy' | 'modern';
  /** MODERN_REVISION for a modern server; the version its initialize answer named otherwise. */
  protocolVersion: string;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions?: string;
}

export interface ChildProbe {
  /** A request of the gateway's own; rejects with the server's JSON-RPC error, or on timeout. */
  request(method: string, params: Record<string, unknown>, timeoutMs?: number): Promise<Result>;
  clientInfo: Implementation;
  capabilities: ClientCapabilities;
  /** Default DISCOVER_TIMEOUT_MS. */
  discoverTimeoutMs?: number;
}

/**
 * A modern server answers at once; one that says nothing this long is taken for a legacy one
 * (some 2025 servers never answer a request that comes before initialize).
 */
export const DISCOVER_TIMEOUT_MS = 10_000;

const DiscoverResultSchema = z.looseObject({
  supportedVersions: z.array(z.string()),
  capabilities: z.looseObject({}),
  instructions: z.string().optional(),
  _meta: z.looseObject({ [SERVER_INFO_META_KEY]: z.looseObject({ name: z.string(), version: z.string() }).optional() }).optional(),
});

/** The per-request `_meta` envelope a 2026-07-28 request carries in place of a handshake. */
export function modernEnvelope(clientInfo: Implementation, capabilities: ClientCapabilities): Record<string, unknown> {
  return {
    [PROTOCOL_VERSION_META_KEY]: MODERN_REVISION,
    [CLIENT_INFO_META_KEY]: clientInfo,
    [CLIENT_CAPABILITIES_META_KEY]: capabilities,
  };
}

export async function negotiateChild(probe: ChildProbe): Promise<ChildServer> {
  return (await discover(probe)) ?? initialize(probe);
}

async function discover(probe: ChildProbe): Promise<ChildServer | undefined> {
  let result: Result;
  try {
    const params = { _meta: modernEnvelope(probe.clientInfo, probe.capabilities) };
    result = await probe.request('server/discover', params, probe.discoverTimeoutMs ?? DISCOVER_TIMEOUT_MS);
  } catch {
    // Method not found, unsupported version, silence: all say "not a 2026-07-28 server".
    return undefined;
  }
  const parsed = DiscoverResultSchema.safeParse(result);
  if (!parsed.success || !parsed.data.supportedVersions.includes(MODERN_REVISION)) return undefined;
  const { capabilities, instructions, _meta } = parsed.data;
  return {
    era: 'modern',
    protocolVersion: MODERN_REVISION,
    capabilities: capabilities as ServerCapabilities,
    // serverInfo is a SHOULD on modern results: a server without it is still served, unnamed.
    serverInfo: _meta?.[SERVER_INFO_META_KEY] ?? { name: 'stdio-server', version: 'unknown' },
    ...(instructions === undefined ? {} : { instructions }),
  };
}

async function initialize(probe: ChildProbe): Promise<ChildServer> {
  const result = await probe.request('initialize', {
    protocolVersion: LATEST_PROTOCOL_VERSION,
    capabilities: probe.capabilities,
    clientInfo: probe.clientInfo,
  });
  const server = InitializeResultSchema.parse(result);
  if (!SUPPORTED_PROTOCOL_VERSIONS.includes(server.protocolVersion)) {
    throw new Error(`unsupported protocol version ${server.protocolVersion}`);
  }
  return {
    era: 'legacy',
    protocolVersion: server.protocolVersion,
    capabilities: server.capabilities,
    serverInfo: server.serverInfo,
    ...(server.instructions === undefined ? {} : { instructions: server.instructions }),
  };
}

/**
 * A 2026-07-28 server announces list changes only on a subscriptions/listen stream; the gateway
 * opens one for whatever the server says may change, and relays what it hears to every client.
 * Undefined when the server announces nothing.
 */
export function listChangesListen(server: ChildServer, probe: Pick<ChildProbe, 'clientInfo' | 'capabilities'>): Record<string, unknown> | undefined {
  if (server.era !== 'modern') return undefined;
  const { tools, prompts, resources } = server.capabilities;
  const notifications = {
    ...(tools?.listChanged ? { toolsListChanged: true } : {}),
    ...(prompts?.listChanged ? { promptsListChanged: true } : {}),
    ...(resources?.listChanged ? { resourcesListChanged: true } : {}),
  };
  if (Object.keys(notifications).length === 0) return undefined;
  return { notifications, _meta: modernEnvelope(probe.clientInfo, probe.capabilities) };
}
