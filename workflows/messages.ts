// The connector workflow's messages, typed once and imported by the workflow, the API, the
// proxy and the tests alike. Arguments carry ciphertext only: a token is sealed before it is
// handed to Temporal, so history never holds a secret.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ConnectorState } from '../core/connector-states';
import type { Ciphertext } from '../core/secret-box';
import type { StdioConfig } from '../core/schemas';
import type { CallbackOutcome } from './oauth-types';

export const connectorWorkflowId = (connectorId: string): string => `connector:${connectorId}`;

export interface ConnectorInit {
  id: string;
  url: string;
  metadata: Record<string, string>;
  preset: { url: string } | null;
  stdio: StdioConfig | null;
  createdBy: string | null;
  clientId: string | null;
  clientSecret: Ciphertext | null;
  /** Optional fields are absent in workflows started before they existed. */
  settings: { historyLimit: number; authTimeoutSeconds: number; connectTimeoutMs: number; stdioReadyTimeoutMs?: number; refreshSkewSeconds?: number };
}

/** The record as the workflow projects it to MongoDB (the API adds `mcp_url`). */
export interface ConnectorView {
  id: string;
  url: string;
  state: ConnectorState;
  metadata: Record<string, string>;
  auth_request: { type: 'code'; authorization_endpoint: string; expires_at: string } | null;
  disconnect_reason: string | null;
  disconnect_permanent: boolean | null;
  preset: { url: string } | null;
  created_at: string;
  updated_at: string;
  created_by: string | null;
  version: number;
}

export interface Actor {
  actor: string;
}

export interface ConnectInput extends Actor {
  accessToken?: Ciphertext;
  redirectUrl?: string;
  /** Answer once `connecting` is on record instead of waiting for the outcome (Prefer: respond-async). */
  respondAsync?: boolean;
}

/** What the proxy needs to route a request: target and sealed token, when connected. */
export interface RouteView {
  state: ConnectorState;
  target: string | null;
  token: Ciphertext | null;
}

/**
 * What an MCP server's Bearer challenge said when it asked for authorization through the proxy:
 * kept by the connector so that the next connect authorizes with it, even where the server
 * lets the connect's unauthenticated `initialize` through.
 */
export interface AuthChallenge {
  resourceMetadata: string | null;
  scope: string | null;
}

/** The MCP server refused a proxied request that carried `usedToken` (null: no token at all). */
export interface UpstreamRefusal {
  usedToken: Ciphertext | null;
  status: 401 | 403;
  challenge: AuthChallenge | null;
}

/** Failure types the API maps to HTTP answers. */
export const FAILURE = {
  invalidTransition: 'InvalidTransition', // 409
  upstreamError: 'UpstreamError', // 502
  upstreamTimeout: 'UpstreamTimeout', // 504
  unprocessable: 'Unprocessable', // 422
  cancelled: 'Cancelled', // 409: a disconnect or delete overtook the connect
  invalidGrant: 'InvalidGrant', // the refresh token is expired or revoked: permanent
  authorizationFailed: 'AuthorizationFailed', // the callback carried an error or failed its checks
  transient: 'Transient', // worth retrying: the server was unreachable or overloaded
} as const;

export interface CallbackInput {
  stateHash: string;
  /** The callback's query string, sealed: it carries the authorization code. */
  callback: Ciphertext;
}

export const createdUpdate = defineUpdate<ConnectorView>('created');
export const connectUpdate = defineUpdate<ConnectorView, [ConnectInput]>('connect');
export const disconnectUpdate = defineUpdate<ConnectorView, [Actor]>('disconnect');
export const deleteUpdate = defineUpdate<ConnectorView, [Actor]>('delete');
export const callbackUpdate = defineUpdate<CallbackOutcome, [CallbackInput]>('authorizationCallback');
/** The proxy saw the upstream refuse `usedToken` (401): refresh it once, shared by every caller. */
export const refreshUpdate = defineUpdate<RouteView, [{ usedToken: Ciphertext | null }]>('refreshToken');
/** The upstream asked for more scope (403 insufficient_scope): remembered for the next authorization. */
export const stepUpSignal = defineSignal<[{ scope: string }]>('stepUp');
export const routeQuery = defineQuery<RouteView>('route');
export const viewQuery = defineQuery<ConnectorView>('view');
/**
 * The upstream refused a request in a way no refresh can mend (see UpstreamRefusal): the
 * connector is disconnected with the challenge kept, unless the token reported is no longer
 * the connector's. Answers the route as it then is, once the change is on record.
 */
export const upstreamRefusedUpdate = defineUpdate<RouteView, [UpstreamRefusal]>('upstreamRefused');
