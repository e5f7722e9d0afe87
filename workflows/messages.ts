// The connector workflow's messages, typed once and imported by the workflow, the API, the
// proxy and the tests alike. Arguments carry ciphertext only: a token is sealed before it is
// handed to Temporal, so history never holds a secret.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ConnectorState } from '../contract/connector-states';
import type { ConnectorRecord } from '../contract/connector-record';
import type { AuthChallenge } from '../contract/www-authenticate';
import type { Ciphertext } from '../contract/ciphertext';
import type { SealedHeader, UpstreamBinding } from '../contract/upstream-inputs';
import type { ApprovalRule } from '../contract/approvals';
import type { ClientCredentialsGrant, EnterpriseManagedGrant, WorkloadIdentityGrant } from '../activities/oauth/oauth-state';

export const connectorWorkflowId = (connectorId: string): string => `connector:${connectorId}`;

export type { ClientCredentialsGrant, EnterpriseManagedGrant, WorkloadIdentityGrant } from '../activities/oauth/oauth-state';

export interface ConnectorInit {
  id: string;
  url: string;
  metadata: Record<string, string>;
  /** The matched preset, by its normalised URL: the worker looks up its stdio config and credentials. */
  preset: { url: string } | null;
  /** The OAuth client is the preset's: the activities take its client_id and client_secret from `preset.url`. */
  presetClient: boolean;
  createdBy: string | null;
  /** The owner's readable name at creation. */
  createdByName: string | null;
  /** Client credentials given in the create request. */
  clientId: string | null;
  clientSecret: Ciphertext | null;
  /** The server speaks the HTTP+SSE transport of 2024-11-05 (absent: Streamable HTTP). */
  transport?: 'sse';
  /** The owner's approval rules given at creation (absent: none). */
  approvalRules?: ApprovalRule[];
  /**
   * The run continues as new once a connect or callback has settled into a refresh wait, so that
   * a restarted worker replays the waits, not the connect (absent from connectors created before
   * it: only at the history limit).
   */
  freshRunAfterConnect?: true;
  /**
   * The patched() changes (workflows/code-changes.ts) that the code starting this run had built
   * in: the run takes them without asking patched(), which writes a marker and an upsert into each
   * run. Set at creation and at every continue-as-new (absent from runs started before: they ask).
   */
  changesBuiltIn?: string[];
  settings: {
    historyLimit: number; authTimeoutSeconds: number; connectTimeoutMs: number; stdioReadyTimeoutMs: number; refreshSkewSeconds: number;
    /** CONNECTOR__MIN_REFRESH_INTERVAL_SECONDS (absent from connectors created before it: its default). */
    minRefreshIntervalSeconds?: number;
  };
}

export interface Actor {
  actor: string;
}

export interface ConnectInput extends Actor {
  accessToken?: Ciphertext;
  /** grant client_credentials: the service obtains its own token with these (SEP-1046). */
  clientCredentials?: ClientCredentialsGrant;
  /** grant enterprise_managed: the service obtains its own token from the user's identity assertion (SEP-990). */
  enterpriseManaged?: EnterpriseManagedGrant;
  /** grant workload_identity: the service presents its own workload identity token (SEP-1933). */
  workloadIdentity?: WorkloadIdentityGrant;
  redirectUrl?: string;
  /** The headers (sealed) and URL variables this connect gives for the upstream (absent: none). */
  binding?: UpstreamBinding;
  /** Answer once `connecting` is on record instead of waiting for the outcome (Prefer: respond-async). */
  respondAsync?: boolean;
}

/** What the proxy needs to route a request: target and sealed token, when connected. */
export interface RouteView {
  state: ConnectorState;
  /** The connector's owner: the proxy answers 404 to anyone else. */
  owner: string | null;
  target: string | null;
  token: Ciphertext | null;
  /** The token is DPoP-bound to this key (sealed; absent or null: a Bearer token). */
  dpopKey?: Ciphertext | null;
  /** A managed workload's gateway secret, sealed (null for remote servers). */
  gatewaySecret: Ciphertext | null;
  /** Headers sent on every request to the upstream, sealed (absent: none). */
  headers?: SealedHeader[];
  /** The target is the workload the service started (mcp+stdio): reached whatever its address. */
  managed: boolean;
  /** The target speaks the HTTP+SSE transport of 2024-11-05 (absent: Streamable HTTP). */
  transport?: 'sse';
  /** The authorization URL on offer (auth_required, or a step-up while connected). */
  authorizationUrl: string | null;
  /** auth_required for an enterprise-managed grant: a connect with a fresh id_token is what it needs (absent: nothing of the kind). */
  needs?: 'id_token';
  /** The connector's own approval rules (absent: none). */
  approvalRules?: ApprovalRule[];
}

/** The owner replaces the connector's approval rules (an empty list removes them). */
export interface ApprovalRulesInput extends Actor {
  rules: ApprovalRule[];
}

/** The upstream answered 403 insufficient_scope to a request that carried `usedToken`. */
export interface StepUpRequest {
  usedToken: Ciphertext;
  /** The challenge's scope, space-separated. */
  scope: string;
  challenge: AuthChallenge | null;
}

/** A step-up's outcome: the authorization URL on offer, or why there is none. */
export interface StepUpView {
  route: RouteView;
  authorizationUrl: string | null;
  /** Why no URL could be offered (the token was replaced, the authorization server failed, …). */
  reason: string | null;
  /** The token reported was replaced meanwhile (absent: it was not). */
  stale?: boolean;
}

/** The MCP server refused a proxied request that carried `usedToken` (null: no token at all). */
export interface UpstreamRefusal {
  usedToken: Ciphertext | null;
  status: 401 | 403;
  challenge: AuthChallenge | null;
}

/** The outcome of a callback, as the API relays it to the user. */
export interface CallbackOutcome {
  connectorId: string;
  redirectUrl: string | null;
  error: string | null;
  errorDescription: string | null;
}

export interface CallbackInput {
  stateHash: string;
  /** The callback's query string, sealed: it carries the authorization code. */
  callback: Ciphertext;
}

export const createdUpdate = defineUpdate<ConnectorRecord>('created');
export const connectUpdate = defineUpdate<ConnectorRecord, [ConnectInput]>('connect');
export const disconnectUpdate = defineUpdate<ConnectorRecord, [Actor]>('disconnect');
export const deleteUpdate = defineUpdate<ConnectorRecord, [Actor]>('delete');
export const approvalRulesUpdate = defineUpdate<ConnectorRecord, [ApprovalRulesInput]>('setApprovalRules');
export const callbackUpdate = defineUpdate<CallbackOutcome, [CallbackInput]>('authorizationCallback');
/** The proxy saw the upstream refuse `usedToken` (401): refresh it once, shared by every caller. */
export const refreshUpdate = defineUpdate<RouteView, [{ usedToken: Ciphertext | null }]>('refreshToken');
/**
 * The upstream asked for more scope (403 insufficient_scope) while connected: SEP-2350, the
 * connector stays connected and offers a step-up authorization URL for the accumulated scopes
 * (reused while one for those scopes is still on offer).
 */
export const stepUpUpdate = defineUpdate<StepUpView, [StepUpRequest]>('stepUpAuthorization');
/** The registry sync: the connector's preset was deleted from the registry; `reason` becomes its disconnect_reason. */
export const presetWithdrawnSignal = defineSignal<[{ reason: string }]>('presetWithdrawn');
export const routeQuery = defineQuery<RouteView>('route');
export const viewQuery = defineQuery<ConnectorRecord>('view');
/**
 * The upstream refused a request in a way no refresh can mend (see UpstreamRefusal): the
 * connector moves to auth_required with a fresh authorization URL (disconnected, with the reason,
 * only when no authorization can be started), unless the token reported is no longer the
 * connector's. Answers the route as it then is, once the change is on record.
 */
export const upstreamRefusedUpdate = defineUpdate<RouteView, [UpstreamRefusal]>('upstreamRefused');
