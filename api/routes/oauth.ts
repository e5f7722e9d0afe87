// The OAuth endpoints of the service itself: the callback the authorization server sends the
// user back to, and the client metadata document that serves as our client_id where supported.
import type { Context } from 'koa';
import { WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { secretContext, type SecretBox } from '../../platform/secret-box';
import {
  OAUTH_CALLBACK_PATH, buildClientMetadataDocument, clientMetadataDocumentUrl, consentCookieName,
} from '../../contract/oauth-client-metadata';
import type { ConnectorStore } from '../../store/connector-store';
import { renderConsentPage } from '../consent-page';
import { ProblemError } from '../../contract/problem';
import { FAILURE, FAILURE_HTTP } from '../../contract/failures';
import { hashState, type OAuthStore } from '../../store/oauth-store';
import { callbackUpdate, connectorWorkflowId, type CallbackOutcome } from '../../workflows/messages';
import { renderCallbackPage } from '../callback-page';
import { deliverCallback } from '../callback-delivery';
import type { Handler } from '../router';
import type { OwnerSource } from '../workflow-owners';
import type { Logger } from '../../platform/logger';

export interface OAuthRouteDeps {
  temporal: Client;
  oauthStore: OAuthStore;
  store: ConnectorStore;
  secrets: SecretBox;
  baseUrl: string;
  logger: Logger;
}

type OAuthOperation = 'getClientMetadata' | 'getConsentPage' | 'oauthCallback';

/** `owners`: the consent page names the owner its workflow holds, not what the database says. */
export function oauthHandlers(deps: OAuthRouteDeps & { owners: OwnerSource }): { [K in OAuthOperation]: Handler<K> } {
  // Authorization servers accept only https client_id URLs, so the document exists only there.
  const document = clientMetadataDocumentUrl(deps.baseUrl) ? buildClientMetadataDocument({ baseUrl: deps.baseUrl }) : null;

  const getClientMetadata: Handler<'getClientMetadata'> = (ctx) => {
    if (!document) throw new ProblemError(404, 'the client metadata document is served only under an https BASE_URL');
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = document;
  };

  const getConsentPage: Handler<'getConsentPage'> = async (ctx) => {
    const hash = typeof ctx.query.request === 'string' ? ctx.query.request : '';
    const pending = hash ? await deps.oauthStore.pendingState(hash) : null;
    const [record, owner] = pending ? await Promise.all([deps.store.get(pending.connector_id), deps.owners.ownerOf(pending.connector_id)]) : [null, null];
    if (!pending?.authorization_url || !record || !owner) {
      return respond(ctx, { connectorId: null, redirectUrl: null, error: 'invalid_request', errorDescription: 'this authorization request is unknown, expired or already used' });
    }
    const authorizationUrl = deps.secrets.open(pending.authorization_url, `consent/${hash}`);
    // Sealed, so only this service can have made it; HttpOnly, and Lax so that it comes back with
    // the authorization server's top-level redirect to the callback. Written by hand: Koa refuses
    // a Secure cookie on a plain connection, which is what a TLS-terminating ingress hands on.
    const attributes = [
      `Path=${OAUTH_CALLBACK_PATH}`, `Expires=${pending.expires_at.toUTCString()}`, 'HttpOnly', 'SameSite=Lax',
      ...(deps.baseUrl.startsWith('https:') ? ['Secure'] : []),
    ];
    ctx.append('Set-Cookie', `${consentCookieName(hash)}=${deps.secrets.seal(hash, 'oauth_consent')}; ${attributes.join('; ')}`);
    ctx.set('Cache-Control', 'no-store');
    setPageHeaders(ctx);
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = renderConsentPage({
      serverUrl: record.url, ownerName: owner.name ?? owner.owner, connectorName: record.metadata.name ?? null, authorizationUrl,
    });
  };

  const oauthCallback: Handler<'oauthCallback'> = async (ctx) => {
    const state = typeof ctx.query.state === 'string' ? ctx.query.state : '';
    const hash = state ? hashState(state) : null;
    const known = hash && !cameThroughConsent(ctx, deps.secrets, hash) ? await deps.oauthStore.findState(hash) : null;
    if (known) {
      // Not the browser that opened the consent page: the state stays unused for the one that did.
      return respond(ctx, {
        connectorId: known.connector_id, redirectUrl: known.redirect_url, error: 'access_denied',
        errorDescription: 'this authorization was not started in this browser',
      });
    }
    const pending = hash ? await deps.oauthStore.claimState(hash) : null;
    if (!pending) {
      // Used or expired: no connector is touched, and the user goes back where the connect said
      // (that redirect_url passed the allow-list then). Unknown: nothing is known, so the page.
      const known = hash ? await deps.oauthStore.findState(hash) : null;
      return respond(ctx, {
        connectorId: known?.connector_id ?? null, redirectUrl: known?.redirect_url ?? null, error: 'invalid_request',
        errorDescription: known ? 'this authorization request has expired or was already used' : 'this authorization request is unknown',
      });
    }
    const id = pending.connector_id;
    const sealed = deps.secrets.seal(ctx.querystring, secretContext(id, 'oauth_callback'));
    const handle = deps.temporal.workflow.getHandle(connectorWorkflowId(id));
    const input = { stateHash: pending._id, callback: sealed };
    const lost = (err: Error, attempt: number) => deps.logger.warn(
      { connectorId: id, attempt, error: err.name, detail: err.message }, 'the callback Update ended without an answer: sending it again under the same Update id',
    );
    let outcome: CallbackOutcome;
    try {
      outcome = await deliverCallback((updateId) => handle.executeUpdate(callbackUpdate, { updateId, args: [input] }), pending._id, lost);
    } catch (err) {
      const refused = err instanceof WorkflowUpdateFailedError;
      // Anything but a refusal, after the last try, leaves the outcome unknown: the workflow may
      // have taken the callback all the same, so the log says which it was.
      if (!refused) deps.logger.warn({ connectorId: id, error: (err as Error)?.name, detail: (err as Error)?.message }, 'the callback Update ended without an outcome: the connector may still complete the authorization');
      const detail = refused ? (err.cause?.message ?? err.message) : 'the connector could not complete the authorization';
      outcome = { connectorId: id, redirectUrl: pending.redirect_url, error: 'invalid_request', errorDescription: detail };
    }
    respond(ctx, outcome);
  };

  return { getClientMetadata, getConsentPage, oauthCallback };
}

function respond(ctx: Context, outcome: { connectorId: string | null; redirectUrl: string | null; error: string | null; errorDescription: string | null }) {
  ctx.set('Cache-Control', 'no-store');
  setPageHeaders(ctx);
  if (outcome.redirectUrl) {
    const target = new URL(outcome.redirectUrl);
    if (outcome.connectorId) target.searchParams.set('connector_id', outcome.connectorId);
    if (outcome.error) {
      target.searchParams.set('error', outcome.error);
      if (outcome.errorDescription) target.searchParams.set('error_description', outcome.errorDescription);
    }
    ctx.status = 302;
    ctx.redirect(target.toString());
    return;
  }
  // Every failure of the flow is the authorization failing, whatever failed inside it.
  ctx.status = outcome.error ? FAILURE_HTTP[FAILURE.authorizationFailed].status : 200;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = renderCallbackPage(outcome);
}

/**
 * The consent and callback pages are never framed (a page that overlays them could steal the
 * click that grants access): CSP frame-ancestors, and X-Frame-Options for browsers without it.
 */
function setPageHeaders(ctx: Context): void {
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
  ctx.set('X-Frame-Options', 'DENY');
}

/** Whether the browser holds the consent page's cookie for this state. */
function cameThroughConsent(ctx: Context, secrets: SecretBox, hash: string): boolean {
  const cookie = ctx.cookies.get(consentCookieName(hash));
  if (!cookie) return false;
  try {
    return secrets.open(cookie, 'oauth_consent') === hash;
  } catch {
    return false;
  }
}
