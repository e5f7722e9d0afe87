// How the OAuth activities open what the workflow hands them and seal what they hand back: every
// secret is bound to its connector and field (platform/secret-box.ts), a preset's client secret is
// read from the worker's configuration and never travels at all, and a registration's secret is
// bound to its issuer.
import { secretContext, type Ciphertext, type SecretBox } from '../platform/secret-box';
import type { Preset } from '../contract/schemas';
import { configuredPreset } from './configured-preset';
import type { OAuthContext, SealedTokens } from './oauth/oauth-state';
import type { AuthorizationServerMetadata, ClientIdentity, RegisteredClient, TokenSet } from './oauth';
import { generateDpopKeyJwk, offersDpop } from './oauth/dpop';
import { DPOP_KEY_PURPOSE } from '../contract/dpop-key';
import type { StoredRegistration } from '../store/oauth-store';

export class OAuthSecrets {
  /** `dpop`: grants are bound where the authorization server offers it (CONNECTOR__UPSTREAM_DPOP). */
  constructor(private readonly secrets: SecretBox, private readonly presets: readonly Preset[], private readonly dpop = true) {}

  seal(connectorId: string, purpose: string, value: string): Ciphertext {
    return this.secrets.seal(value, secretContext(connectorId, purpose));
  }

  open(connectorId: string, purpose: string, value: Ciphertext): string {
    return this.secrets.open(value, secretContext(connectorId, purpose));
  }

  /** What the refresh ledger knows a refresh token by: a MAC bound to its connector, never the token. */
  refreshKey(connectorId: string, refreshToken: string): string {
    return this.secrets.tag(refreshToken, secretContext(connectorId, 'refresh_ledger'));
  }

  /** What the ledger knows an authorization's callback (its code) by: a MAC, in a space of its own. */
  codeKey(connectorId: string, callbackQuery: string): string {
    return this.secrets.tag(callbackQuery, secretContext(connectorId, 'code_ledger'));
  }

  /** The client as a step needs it: its secret opened, or read from the preset it names. */
  plainClient(connectorId: string, client: OAuthContext['client']): ClientIdentity {
    const { presetUrl, privateKey, ...rest } = client;
    return {
      ...rest,
      clientSecret: presetUrl !== undefined ? configuredPreset(this.presets, presetUrl).client_secret ?? null
        : client.clientSecret ? this.open(connectorId, 'oauth_client_secret', client.clientSecret) : null,
      privateKey: privateKey ? { pem: this.open(connectorId, 'oauth_private_key', privateKey.pem), algorithm: privateKey.algorithm } : null,
    };
  }

  /** The preset's client, or null when the preset no longer names one (then found as without). */
  presetClient(url: string): { clientId: string; clientSecret: string | null } | null {
    const preset = configuredPreset(this.presets, url);
    return preset.client_id ? { clientId: preset.client_id, clientSecret: preset.client_secret ?? null } : null;
  }

  /** The client as the workflow keeps it: a preset's by reference, any other secret sealed. */
  sealClient(connectorId: string, identity: ClientIdentity, presetUrl: string | null): OAuthContext['client'] {
    const { privateKey, ...rest } = identity;
    const sealedKey = privateKey ? { pem: this.seal(connectorId, 'oauth_private_key', privateKey.pem), algorithm: privateKey.algorithm } : null;
    if (presetUrl !== null) return { ...rest, clientSecret: null, privateKey: sealedKey, presetUrl };
    return { ...rest, privateKey: sealedKey, clientSecret: identity.clientSecret ? this.seal(connectorId, 'oauth_client_secret', identity.clientSecret) : null };
  }

  sealTokens(connectorId: string, tokens: TokenSet): SealedTokens {
    return {
      accessToken: this.seal(connectorId, 'access_token', tokens.accessToken),
      refreshToken: tokens.refreshToken ? this.seal(connectorId, 'refresh_token', tokens.refreshToken) : null,
      expiresAt: tokens.expiresAt,
      scope: tokens.scope,
      ...(tokens.dpop ? { dpop: true as const } : {}),
    };
  }

  /** A new DPoP key for a grant at `as`, sealed; none where the server does not advertise DPoP. */
  newDpopKey(connectorId: string, as: AuthorizationServerMetadata): { dpopKey?: Ciphertext } {
    return this.dpop && offersDpop(as) ? { dpopKey: this.seal(connectorId, DPOP_KEY_PURPOSE, generateDpopKeyJwk()) } : {};
  }

  /** The grant's DPoP key (JWK, JSON), opened for one step; null when the grant has none. */
  dpopKey(connectorId: string, context: OAuthContext): string | null {
    return context.dpopKey ? this.open(connectorId, DPOP_KEY_PURPOSE, context.dpopKey) : null;
  }

  sealRegistration(r: RegisteredClient): Omit<StoredRegistration, '_id'> {
    return {
      issuer: r.issuer, client_id: r.clientId, redirect_uri: r.redirectUri, auth_method: r.authMethod,
      client_secret: r.clientSecret ? this.secrets.seal(r.clientSecret, `registration/${r.issuer}`) : null,
      client_secret_expires_at: r.clientSecretExpiresAt,
    };
  }

  openRegistration(r: StoredRegistration): RegisteredClient {
    return {
      issuer: r.issuer, clientId: r.client_id, redirectUri: r.redirect_uri, authMethod: r.auth_method as RegisteredClient['authMethod'],
      clientSecret: r.client_secret ? this.secrets.open(r.client_secret, `registration/${r.issuer}`) : null,
      clientSecretExpiresAt: r.client_secret_expires_at,
    };
  }
}
