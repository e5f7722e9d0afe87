// The web console (GET /), the API reference (GET /reference), their files (GET /console/<file>)
// and the console's settings (GET /console/config.json). All open: they hold no data, and the
// console then calls the REST API with the user's own credential like any client.
//
// A page opened at an address whose origin the service refuses (callers authenticated, BASE_URL
// says `localhost`, the person typed `127.0.0.1`) would load and then have its scripts refused
// (403): a blank page. Such a request gets a page that says so and links the address that works.
import type { Context } from 'koa';
import type { ConsoleConfig } from '../../config/config';
import { ProblemError } from '../../contract/problem';
import { originAllowed, type OriginPolicy } from '../../callers/request-origin';
import type { ConsoleFiles } from '../console-files';
import type { Handler } from '../router';
import { REFERENCE_CSP, consoleCsp, setConsoleHeaders } from '../console-headers';

type ConsoleOperation = 'getConsole' | 'getReference' | 'getConsoleConfig' | 'getConsoleFile';

export interface ConsoleOptions {
  /** The console's sign-in at the identity provider; null: API keys only. */
  signIn: ConsoleConfig | null;
  /** The Origin rules of the HTTP server: which addresses a page may be opened at. */
  origin: OriginPolicy;
}

export function consoleHandlers(files: ConsoleFiles, options: ConsoleOptions): { [K in ConsoleOperation]: Handler<K> } {
  const { signIn, origin } = options;
  const csp = consoleCsp({ issuerOrigin: signIn ? new URL(signIn.issuer).origin : null });
  const config = {
    issuer: signIn?.issuer ?? null, client_id: signIn?.clientId ?? null, resource: signIn?.audience ?? null, scope: signIn?.scope ?? null,
    // Whether to ask for a credential at once, rather than finding out from a refused request.
    callers_authenticated: origin.authEnabled,
  };
  const page = (name: string, pageCsp: string) => (ctx: Context) => {
    if (refusedHere(ctx, origin)) return wrongAddress(ctx, origin, csp);
    serve(ctx, files, name, pageCsp);
  };
  return {
    getConsole: page('index.html', csp),
    getReference: page('reference.html', REFERENCE_CSP),
    getConsoleConfig: (ctx) => {
      setConsoleHeaders(ctx, csp);
      ctx.set('Cache-Control', 'no-cache');
      ctx.body = config;
    },
    getConsoleFile: (ctx) => serve(ctx, files, String(ctx.params.file ?? ''), csp),
  };
}

/** Whether a page served to this request would have its own requests refused for their Origin. */
function refusedHere(ctx: Context, policy: OriginPolicy): boolean {
  const host = ctx.get('host');
  if (!host) return false;
  return !originAllowed(`${new URL(policy.baseUrl).protocol}//${host.toLowerCase()}`, policy);
}

function wrongAddress(ctx: Context, policy: OriginPolicy, csp: string): void {
  setConsoleHeaders(ctx, csp);
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'text/html; charset=utf-8';
  const there = escape(`${policy.baseUrl}${ctx.path}`);
  const why = policy.authEnabled ? 'callers are authenticated here, so ' : '';
  ctx.body = '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<title>Open the console at its own address</title><link rel="stylesheet" href="/console/app.css"></head>' +
    '<body><main id="main"><h1>Open the console at its own address</h1>' +
    `<p class="lead">This service answers requests from pages at <a id="console-address" href="${there}">${there}</a> only, ` +
    `and ${why}a page opened at this address would have its requests refused: the console cannot work here.</p>` +
    `<p><a class="button" href="${there}">Go to ${there}</a></p>` +
    '<p class="hint">An operator can allow another address with CONNECTOR__ALLOWED_ORIGINS.</p></main></body></html>';
}

const escape = (value: string) =>
  value.replace(/[&<>"'`]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' })[c]!);

function serve(ctx: Context, files: ConsoleFiles, name: string, csp: string): void {
  const file = files.get(name);
  if (!file) {
    throw new ProblemError(404, files.dir ? 'no such console file' : 'the console is not built: run `npm run build`');
  }
  setConsoleHeaders(ctx, csp);
  // Revalidated on every load (an ETag answers 304), so a new build is seen at once.
  ctx.set('Cache-Control', 'no-cache');
  ctx.set('ETag', file.etag);
  ctx.type = file.type;
  ctx.status = 200; // ctx.fresh compares validators only on a 2xx answer
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.length = file.size;
  ctx.body = files.open(file);
}
