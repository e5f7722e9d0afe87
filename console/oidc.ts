// Sign-in at the platform's identity provider (CONNECTOR__AUTH_ISSUER): the authorization code
// flow with PKCE (S256), run by the browser as a public client (RFC 9700 section 2.1.1; the
// console has no secret to keep). The verifier and state wait in sessionStorage for the one
// redirect back, then are deleted whatever the outcome.
import type { ConsoleSettings } from './types';

const PENDING = 'connector-console:pkce';

interface Pending {
  state: string;
  verifier: string;
  tokenEndpoint: string;
  redirectUri: string;
  /** The console's address (#/…) when the sign-in began: a link followed signed out (an approval page) opens after it. */
  returnTo?: string;
}

export interface SignedIn {
  accessToken: string;
  expiresIn?: number;
  /** The user's ID token: the identity assertion of an enterprise-managed connect (SEP-990). */
  idToken?: string;
}

export async function startSignIn(settings: ConsoleSettings): Promise<void> {
  const { issuer, client_id: clientId } = settings;
  if (!issuer || !clientId) throw new Error('sign-in at the identity provider is not configured (CONNECTOR__CONSOLE_CLIENT_ID)');
  const metadata = await discover(issuer);
  if (!(metadata.code_challenge_methods_supported ?? ['S256']).includes('S256')) throw new Error('the identity provider does not support PKCE with S256');
  const verifier = randomToken(32);
  const pending: Pending = { state: randomToken(16), verifier, tokenEndpoint: metadata.token_endpoint, redirectUri: `${location.origin}/`, returnTo: location.hash };
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  const url = new URL(metadata.authorization_endpoint);
  const params: Record<string, string> = {
    response_type: 'code', client_id: clientId, redirect_uri: pending.redirectUri, scope: settings.scope ?? 'openid',
    state: pending.state, code_challenge: await challengeOf(verifier), code_challenge_method: 'S256',
  };
  // RFC 8707: an access token for this service, whose audience the API accepts.
  if (settings.resource) params.resource = settings.resource;
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  location.assign(url.toString());
}

/** Whether this page load is the identity provider's redirect back to the console. */
export function isSignInReturn(search: URLSearchParams): boolean {
  return search.has('state') && (search.has('code') || search.has('error')) && sessionStorage.getItem(PENDING) !== null;
}

export async function completeSignIn(settings: ConsoleSettings, search: URLSearchParams): Promise<SignedIn> {
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null') as Pending | null;
  sessionStorage.removeItem(PENDING);
  if (!pending || search.get('state') !== pending.state) throw new Error('this sign-in was not started in this tab; sign in again');
  if (pending.returnTo?.startsWith('#/')) history.replaceState(null, '', `/${pending.returnTo}`);
  const error = search.get('error');
  if (error) throw new Error(`the identity provider refused the sign-in: ${search.get('error_description') ?? error}`);
  // RFC 9207: where the provider names itself, it must be the one the sign-in went to.
  const iss = search.get('iss');
  if (iss !== null && iss !== settings.issuer) throw new Error('the answer came from another identity provider');
  const body = new URLSearchParams({
    grant_type: 'authorization_code', code: search.get('code') ?? '', redirect_uri: pending.redirectUri,
    client_id: settings.client_id ?? '', code_verifier: pending.verifier,
  });
  if (settings.resource) body.set('resource', settings.resource);
  const res = await fetch(pending.tokenEndpoint, { method: 'POST', body, credentials: 'omit', headers: { accept: 'application/json' } });
  const answer = (await res.json().catch(() => ({}))) as { access_token?: string; expires_in?: number; id_token?: string; error?: string; error_description?: string };
  if (!res.ok || !answer.access_token) throw new Error(`the token request failed: ${answer.error_description ?? answer.error ?? res.status}`);
  return { accessToken: answer.access_token, expiresIn: answer.expires_in, ...(answer.id_token ? { idToken: answer.id_token } : {}) };
}

interface ServerMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  code_challenge_methods_supported?: string[];
}

/** OpenID discovery, then RFC 8414; the document must name the configured issuer exactly. */
async function discover(issuer: string): Promise<ServerMetadata> {
  for (const url of [`${issuer}/.well-known/openid-configuration`, `${new URL(issuer).origin}/.well-known/oauth-authorization-server${new URL(issuer).pathname.replace(/\/$/, '')}`]) {
    const res = await fetch(url, { credentials: 'omit' }).catch(() => null);
    if (!res?.ok) continue;
    const metadata = (await res.json()) as ServerMetadata;
    if (metadata.issuer !== issuer) throw new Error('the identity provider\'s metadata names another issuer');
    return metadata;
  }
  throw new Error('the identity provider\'s metadata cannot be read');
}

function randomToken(bytes: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

async function challengeOf(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}

function base64url(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
