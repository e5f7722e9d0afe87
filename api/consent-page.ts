// The page a user's browser opens first when a connector asks for authorization: it says which
// MCP server is being connected, which authorization server the user will sign in at (the one the
// MCP server named, which may be anyone's: the user should recognise it before typing a password
// there), and for whom, so that a user sent a link by someone else sees whose connector their
// account would serve (the confused-deputy defence of the MCP security best practices), and
// continues to the authorization server only by choice. Every value is
// escaped; the server's URL is shown as origin and path only (a query or userinfo can hold a
// credential, and the page is shown to someone other than the owner). The response headers
// (oauth route) forbid framing, so the page cannot be overlaid to steal the click.
const escape = (value: string) =>
  value.replace(/[&<>"'`]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' })[c]!);

export interface ConsentPage {
  serverUrl: string;
  /** The owner's readable name captured at creation (or its qualified id when none was); null: no owner (callers off). */
  ownerName: string | null;
  connectorName: string | null;
  authorizationUrl: string;
}

export function renderConsentPage(page: ConsentPage): string {
  const server = escape(shownUrl(page.serverUrl));
  const owner = page.ownerName ? `<strong>${escape(page.ownerName)}</strong>` : '<strong>this service</strong> (no owner recorded)';
  const name = page.connectorName ? ` (${escape(page.connectorName)})` : '';
  const signIn = escape(originOf(page.authorizationUrl));
  return '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorize an MCP connector</title></head>' +
    '<body style="font-family:sans-serif;max-width:40em;margin:4em auto"><h1>Authorize an MCP connector</h1>' +
    `<p>You are about to let a connector act with your account at this MCP server:</p><p><code>${server}</code>${name}</p>` +
    `<p>You will sign in at this authorization server, which the MCP server named:</p><p><code id="authorization-server">${signIn}</code></p>` +
    `<p>The connector belongs to ${owner}. If you continue, <strong>your account at this MCP server will serve ${owner}</strong>: ` +
    'its agents will act as you there, with whatever you grant. Continue only if you started this yourself.</p>' +
    `<p><a id="continue" href="${escape(page.authorizationUrl)}">Continue to sign in</a></p></body></html>`;
}

/** Scheme and host (with its port): where the user is about to type their credentials. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(an unreadable URL)';
  }
}

/** Scheme, host and path: never userinfo, query or fragment. */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(an unreadable URL)';
  }
}
