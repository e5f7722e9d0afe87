// The page a user's browser opens first when a connector asks for authorization: it says which
// MCP server is being connected and for whom, so that a user sent a link by someone else sees
// whose connector their account would serve (the confused-deputy defence of the MCP security
// best practices), and continues to the authorization server only by choice. Every value is
// escaped.
const escape = (value: string) =>
  value.replace(/[&<>"'`]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' })[c]!);

export function renderConsentPage(page: { serverUrl: string; owner: string | null; connectorName: string | null; authorizationUrl: string }): string {
  const owner = page.owner ? escape(page.owner) : 'this service (no owner recorded)';
  const name = page.connectorName ? ` (${escape(page.connectorName)})` : '';
  return '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorize an MCP connector</title></head>' +
    '<body style="font-family:sans-serif;max-width:40em;margin:4em auto"><h1>Authorize an MCP connector</h1>' +
    `<p>You are about to let a connector act with your account at this MCP server:</p><p><code>${escape(page.serverUrl)}</code>${name}</p>` +
    `<p>The connector belongs to <strong>${owner}</strong>. Its agents will use what you grant. ` +
    'Continue only if you started this yourself.</p>' +
    `<p><a id="continue" href="${escape(page.authorizationUrl)}">Continue to sign in</a></p></body></html>`;
}
