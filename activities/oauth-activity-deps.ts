// What the OAuth activities are built from: its own file so that the steps (oauth-begin-steps.ts)
// and the activities that spread them (oauth-activities.ts) share it without importing each other.
import type { Metrics } from '../platform/metrics';
import type { SecretBox } from '../platform/secret-box';
import type { Preset } from '../contract/schemas';
import type { AddressPolicy } from '../platform/address-guard';
import type { OAuthStore } from '../store/oauth-store';
import type { OAuthHttp } from './oauth';

export interface OAuthActivityDeps {
  http: OAuthHttp;
  secrets: SecretBox;
  oauthStore: OAuthStore;
  baseUrl: string;
  authTimeoutSeconds: number;
  /** The presets configured on this worker: a preset's client credentials are taken from here. */
  presets: readonly Preset[];
  /** Decides where the flow's token may travel (platform/token-transport.ts). */
  addressPolicy: AddressPolicy;
  /** Where refreshes and their lag are counted. */
  metrics?: Pick<Metrics, 'tokenRefreshes' | 'tokenRefreshLag'>;
  /** The service's workload identity token (CONNECTOR__WORKLOAD_IDENTITY_TOKEN_FILE), read at each request; absent: none. */
  workloadIdentityTokenFile?: string | null;
  /** False: no grant is DPoP-bound, whatever the authorization server offers (CONNECTOR__UPSTREAM_DPOP=off). Absent: true. */
  upstreamDpop?: boolean;
  /** How long the MCP handshake probe may take (CONNECTOR__CONNECT_TIMEOUT_MS). */
  connectTimeoutMs?: number;
}
