// The OAuth state a connector workflow keeps, as plain JSON (it crosses continue-as-new).
// Every secret in it is ciphertext.
import type { Ciphertext } from '../../platform/secret-box';
import type { AuthorizationServerMetadata } from './schemas';
import type { ClientAuthMethod, SigningAlgorithm } from './token-auth-method';
import type { AuthChallenge } from '../../contract/www-authenticate';

/** What every later OAuth step needs: the server, who we are to it, and for which resource. */
export interface OAuthContext {
  authorizationServer: AuthorizationServerMetadata;
  client: {
    clientId: string;
    clientSecret: Ciphertext | null;
    authMethod: ClientAuthMethod;
    /** private_key_jwt: the PKCS #8 key, sealed, and the algorithm it signs with. */
    privateKey?: { pem: Ciphertext; algorithm: SigningAlgorithm } | null;
    source: 'given' | 'metadata-document' | 'registered';
    /** The preset whose client this is: its secret is looked up there by each step, never kept here. */
    presetUrl?: string;
  };
  resource: string;
  redirectUri: string;
  scope: string | null;
  /**
   * client_credentials: the token is requested again with the client's own credentials, not
   * refreshed. enterprise_managed: refreshed where the server gave a refresh token, else obtained
   * again from the user's identity assertion while it is valid. workload_identity: requested
   * again with the workload's token as it then reads (the file rotates), not refreshed.
   */
  grant?: 'client_credentials' | 'enterprise_managed' | 'workload_identity';
  /** enterprise_managed: where and with what the identity assertion is exchanged. */
  enterprise?: EnterpriseAssertion;
  /**
   * The connector's DPoP key (RFC 9449), made for this grant where the authorization server
   * advertises DPoP: its private JWK sealed with purpose dpop_key. Every token request of the
   * grant carries a proof made with it; absent: tokens are asked for without proofs.
   */
  dpopKey?: Ciphertext;
}

/** The enterprise identity provider's part of an enterprise_managed grant (SEP-990), every secret sealed. */
export interface EnterpriseAssertion {
  idpTokenEndpoint: string;
  idpClientId: string;
  /** Sealed with purpose idp_client_secret. */
  idpClientSecret: Ciphertext | null;
  /** The user's ID token, sealed with purpose id_token. */
  idToken: Ciphertext;
  /** When the ID token stops being accepted (its exp claim); null when it names none. */
  idTokenExpiresAt: string | null;
  /** The ID token's iss, not secret: where a fresh one comes from when it expires (absent in grants sealed before it existed). */
  issuer?: string | null;
}

/** A client credentials grant's material as a connect gives it, every secret sealed for this connector. */
export interface ClientCredentialsGrant {
  clientId: string;
  /** Sealed with purpose oauth_client_secret. */
  clientSecret: Ciphertext | null;
  /** private_key_jwt: the key sealed with purpose oauth_private_key. */
  privateKey: { pem: Ciphertext; algorithm: SigningAlgorithm } | null;
}

/** An enterprise_managed grant as a connect gives it: the MCP authorization server's client and the identity provider's part. */
export interface EnterpriseManagedGrant {
  client: ClientCredentialsGrant;
  assertion: EnterpriseAssertion;
}

/**
 * A workload_identity grant (SEP-1933): only who the service is at the authorization server. The
 * assertion is the workload's own token, read by the worker from its file at each request, so
 * nothing secret is kept here.
 */
export interface WorkloadIdentityGrant {
  clientId: string;
}

/** An authorization URL was issued; waiting for the user's callback. */
export interface PendingAuthorization {
  stateHash: string;
  state: Ciphertext;
  codeVerifier: Ciphertext;
  redirectUrl: string | null;
  context: OAuthContext;
}

export interface SealedTokens {
  accessToken: Ciphertext;
  refreshToken: Ciphertext | null;
  expiresAt: string | null;
  scope: string | null;
  /** The access token is DPoP-bound to the context's key (absent: a Bearer token). */
  dpop?: true;
}

export interface OAuthState {
  pending: PendingAuthorization | null;
  /** The grant in force while connected through OAuth. */
  session: {
    context: OAuthContext; refreshToken: Ciphertext | null; expiresAt: string | null; obtainedAt: string;
    /** The current access token is DPoP-bound to `context.dpopKey` (absent: Bearer). */
    dpop?: true;
  } | null;
  /** Scopes a server asked for through step-up (403 insufficient_scope), added to the next authorization. */
  stepUpScopes: string[];
  /** The server asked for authorization through the proxy: the next connect authorizes with this. */
  challenge: AuthChallenge | null;
  /**
   * SEP-2352: the authorization server (issuer) the connector's last grant came from, kept across
   * disconnects; a later connect that finds another one registers and authorizes there anew, and
   * never sends given client credentials to it (null: no grant yet).
   */
  boundIssuer: string | null;
  /**
   * SEP-2350: the scopes the last grant carried (the token response's `scope`, else what was
   * asked for). A later authorization asks for them again besides what the server now names, so a
   * step-up never trades away what the user already granted.
   */
  grantedScopes: string[];
}
