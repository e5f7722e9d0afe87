// Token endpoint client authentication: the methods this client can do (client_secret_basic,
// client_secret_post, none), chosen from what the authorization server advertises and what a
// registration says, and turned into oauth4webapi's client objects.
import { importPKCS8 } from 'jose';
import * as oauth from 'oauth4webapi';
import type { SigningAlgorithm } from '../../contract/schemas';
import { UnsupportedAuthMethodError } from './errors';
import type { AuthorizationServerMetadata } from './schemas';

export const TOKEN_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'] as const;
export type TokenAuthMethod = (typeof TOKEN_AUTH_METHODS)[number];
/** Besides the secret-based methods, a client holding a private key signs an RFC 7523 assertion (client credentials only). */
export type ClientAuthMethod = TokenAuthMethod | 'private_key_jwt';

export type { SigningAlgorithm } from '../../contract/schemas';

/** The client as every token, revocation and authorization step needs it. */
export interface ClientIdentity {
  clientId: string;
  clientSecret: string | null;
  authMethod: ClientAuthMethod;
  /** private_key_jwt: the PKCS #8 PEM key and the algorithm to sign with. */
  privateKey?: { pem: string; algorithm: SigningAlgorithm } | null;
  /** Where the identity came from. */
  source: 'given' | 'metadata-document' | 'registered';
}

export function isTokenAuthMethod(value: unknown): value is TokenAuthMethod {
  return typeof value === 'string' && (TOKEN_AUTH_METHODS as readonly string[]).includes(value);
}

/**
 * The method for a client with or without a secret. A method a registration names wins: the
 * registration answer is the server's word about this one client, and servers whose metadata
 * lists fewer methods than they accept are common. Otherwise Basic is preferred over Post
 * (RFC 6749 section 2.3.1). An absent list means the RFC 8414 default (client_secret_basic); a
 * public client is then let through, since servers without a list (2025-03-26 defaults) still
 * take public clients.
 */
export function chooseTokenAuthMethod(
  as: AuthorizationServerMetadata,
  client: { hasSecret: boolean; registered?: string | null },
): TokenAuthMethod {
  if (client.registered) return registeredMethod(as, client.registered, client.hasSecret);
  const listed = as.token_endpoint_auth_methods_supported;
  const allowed = (method: TokenAuthMethod) => (listed ? listed.includes(method) : method !== 'client_secret_post');
  const candidates: TokenAuthMethod[] = client.hasSecret ? ['client_secret_basic', 'client_secret_post'] : ['none'];
  const chosen = candidates.find(allowed);
  if (chosen) return chosen;
  throw new UnsupportedAuthMethodError(client.hasSecret
    ? `the authorization server ${as.issuer} accepts neither client_secret_basic nor client_secret_post`
    : `the authorization server ${as.issuer} does not accept public clients (no client secret was given)`);
}

function registeredMethod(as: AuthorizationServerMetadata, registered: string, hasSecret: boolean): TokenAuthMethod {
  if (registered === 'none') return 'none'; // a secret issued alongside is simply not needed
  if (isTokenAuthMethod(registered) && hasSecret) return registered;
  throw new UnsupportedAuthMethodError(isTokenAuthMethod(registered)
    ? `${as.issuer} registered the client for ${registered} but issued no client secret`
    : `${as.issuer} registered the client for ${registered}, which this service cannot do`);
}

/** The method to ask for in a registration: a confidential client where the server allows one. */
export function registrationAuthMethod(as: AuthorizationServerMetadata): TokenAuthMethod {
  const listed = as.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  const chosen = TOKEN_AUTH_METHODS.find((method) => listed.includes(method));
  if (chosen) return chosen;
  throw new UnsupportedAuthMethodError(`the authorization server ${as.issuer} supports none of ${TOKEN_AUTH_METHODS.join(', ')}`);
}

export function oauthClient(identity: ClientIdentity): oauth.Client {
  return { client_id: identity.clientId, token_endpoint_auth_method: identity.authMethod };
}

export function clientAuthentication(identity: ClientIdentity): oauth.ClientAuth {
  switch (identity.authMethod) {
    case 'client_secret_basic':
      return clientSecretBasic(identity.clientId, requireSecret(identity));
    case 'client_secret_post':
      return oauth.ClientSecretPost(requireSecret(identity));
    case 'none':
      return oauth.None();
    case 'private_key_jwt':
      return privateKeyJwt(requireKey(identity));
  }
}

/**
 * RFC 7523 client assertion (iss = sub = client_id, aud = the issuer, jti, exp), signed by
 * oauth4webapi; the key is imported per request, since a CryptoKey cannot cross activities.
 */
function privateKeyJwt(key: { pem: string; algorithm: SigningAlgorithm }): oauth.ClientAuth {
  return async (as, client, body, headers) => {
    const privateKey = await importPKCS8(key.pem, key.algorithm);
    await oauth.PrivateKeyJwt(privateKey)(as, client, body, headers);
  };
}

function requireKey(identity: ClientIdentity): { pem: string; algorithm: SigningAlgorithm } {
  if (!identity.privateKey) throw new UnsupportedAuthMethodError('private_key_jwt needs a private key, and none is known');
  return identity.privateKey;
}

/**
 * RFC 6749 section 2.3.1: id and secret are each application/x-www-form-urlencoded, then joined
 * by ":" and base64-encoded. That encoding keeps ASCII letters, digits and `*-._` as they are
 * (and writes a space as "+"). oauth4webapi's own ClientSecretBasic escapes `-`, `.`, `_` and `~`
 * as well, which servers that compare the decoded header without form-decoding it refuse as
 * invalid_client (a client id `pre-registered-client` arrived as `pre%2Dregistered%2Dclient`).
 */
export function clientSecretBasic(clientId: string, clientSecret: string): oauth.ClientAuth {
  const credentials = `${formUrlEncode(clientId)}:${formUrlEncode(clientSecret)}`;
  const header = `Basic ${Buffer.from(credentials, 'ascii').toString('base64')}`;
  return (_as, _client, _body, headers) => {
    headers.set('authorization', header);
  };
}

/** One value, encoded as URLSearchParams (the WHATWG form-urlencoded serializer) writes it. */
export function formUrlEncode(value: string): string {
  return new URLSearchParams([['', value]]).toString().slice(1);
}

function requireSecret(identity: ClientIdentity): string {
  if (!identity.clientSecret) throw new UnsupportedAuthMethodError(`${identity.authMethod} needs a client secret, and none is known`);
  return identity.clientSecret;
}
