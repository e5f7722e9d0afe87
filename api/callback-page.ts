// The page a user sees at the end of an authorization when no redirect_url was given. Every
// value is escaped: the error text can come from the authorization server.
const escape = (value: string) =>
  value.replace(/[&<>"'`]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' })[c]!);

export function renderCallbackPage(outcome: { connectorId: string | null; error: string | null; errorDescription: string | null }): string {
  const ok = !outcome.error;
  const title = ok ? 'Connected' : 'Authorization failed';
  const lines = ok
    ? ['The connector is connected. You can close this window.']
    : [`Error: ${outcome.error}`, ...(outcome.errorDescription ? [outcome.errorDescription] : [])];
  const connector = outcome.connectorId ? `<p>Connector: <code>${escape(outcome.connectorId)}</code></p>` : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>` +
    `<body style="font-family:sans-serif;max-width:40em;margin:4em auto"><h1>${title}</h1>` +
    `${lines.map((l) => `<p>${escape(l)}</p>`).join('')}${connector}</body></html>`;
}
