// What the proxy needs to know about a connector to relay one request, and where it gets it.
// The registry (Temporal) is the source of truth; the proxy only ever asks through RouteSource,
// usually wrapped in the in-memory RouteCache so the hot path makes no network call.
import type { AuthChallenge } from '../contract/www-authenticate';
import type { DpopKey } from '../platform/dpop-proof';
import type { ApprovalRule } from '../contract/approvals';

export interface ConnectedRoute {
  kind: 'connected';
  /** The connector's owner (`created_by`); absent or null: made with caller authentication off. */
  owner?: string | null;
  /** The upstream MCP URL. */
  target: string;
  /**
   * The target is the workload the service itself started for an mcp+stdio connector: the
   * address policy does not apply to it, since no one else named that address.
   */
  managed?: boolean;
  /** The connector's access token, in plaintext, sent upstream as a Bearer token (DPoP with `dpop`). */
  token?: string;
  /** The key the token is bound to (RFC 9449), opened in memory: every request carries a proof made with it. */
  dpop?: DpopKey;
  /**
   * The token as the registry holds it (sealed), opaque to the proxy: it names the token a
   * refresh is asked about, so that a report about an old token does not refresh a new one.
   */
  sealedToken?: string;
  /** A managed workload's gateway secret, in plaintext: sent on every request to the workload. */
  gatewaySecret?: string;
  /** The connect's headers (lower-case names), in plaintext: sent on every request to the upstream. */
  headers?: Record<string, string>;
  /** The upstream speaks the HTTP+SSE transport of 2024-11-05: the proxy bridges it (legacy-sse/). */
  transport?: 'sse';
  /** The connector's own approval rules (its owner's), matched after the operator's: carried here so a call needs no other lookup. */
  approvals?: readonly ApprovalRule[];
}

export type Route =
  | ConnectedRoute
  | { kind: 'not_found' }
  | {
    kind: 'not_connected'; state: string; owner?: string | null;
    /** auth_required: where the user authorizes the connector (the service's consent page). */
    authorizationUrl?: string | null;
    /** auth_required for an enterprise-managed grant: what a connect must bring instead of a URL. */
    needs?: 'id_token';
  };

/** An upstream refusal no refresh can mend: a 401, or a 403 asking a tokenless connector for scope. */
export interface UpstreamRefusalReport {
  /** The sealed token the refused request carried; null when it carried none. */
  sealedToken: string | null;
  status: 401 | 403;
  /** The upstream's Bearer challenge, kept by the registry for the next connect (never relayed). */
  challenge: AuthChallenge | null;
}

export interface RouteSource {
  get(connectorId: string): Promise<Route>;
  /** The route when it is known without waiting (a fresh cache entry), else undefined: ask `get`. */
  peek?(connectorId: string): Route | undefined;
  /** Forget what is known about a connector, so the next request asks the registry again. */
  invalidate?(connectorId: string): void;
  /**
   * The upstream refused the token sealed as `sealedToken` (401): refresh it, unless it was
   * already replaced, and answer the connector's route as it is now. Rejects when the
   * connector has nothing to refresh with.
   */
  refresh?(connectorId: string, sealedToken: string): Promise<Route>;
  /**
   * The upstream refused the connector's credentials (or their absence) for good: the registry
   * disconnects it, keeping the challenge, unless the token reported is no longer current.
   * Answers the connector's route once that is on record.
   */
  refused?(connectorId: string, report: UpstreamRefusalReport): Promise<Route>;
  /**
   * The upstream asked the connector's token for more scope (403 insufficient_scope): the
   * registry offers a step-up authorization for the accumulated scopes, the connector staying
   * connected, and answers its URL (null, with the reason, when none can be offered).
   */
  stepUp?(connectorId: string, report: StepUpReport): Promise<StepUpAnswer>;
}

/** A 403 insufficient_scope to a request that carried the connector's token. */
export interface StepUpReport {
  sealedToken: string;
  /** The scopes the challenge names, space-separated. */
  scope: string;
  challenge: AuthChallenge | null;
}

export interface StepUpAnswer {
  authorizationUrl: string | null;
  reason: string | null;
  /** The token reported is no longer the connector's: the request may succeed if sent again. */
  stale?: boolean;
}
