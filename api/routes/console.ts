// The web console (GET /), the API reference (GET /reference), their files (GET /console/<file>)
// and the console's sign-in settings (GET /console/config.json). All open: they hold no data,
// and the console then calls the REST API with the user's own credential like any client.
import type { Context } from 'koa';
import type { ConsoleConfig } from '../../config/config';
import { ProblemError } from '../../contract/problem';
import type { ConsoleFiles } from '../console-files';
import type { Handler } from '../router';
import { REFERENCE_CSP, consoleCsp, setConsoleHeaders } from '../console-headers';

export const CONSOLE_PREFIX = '/console/';
export const REFERENCE_PATH = '/reference';
export const CONSOLE_CONFIG_PATH = '/console/config.json';

type ConsoleOperation = 'getConsole' | 'getReference' | 'getConsoleConfig' | 'getConsoleFile';

export function consoleHandlers(files: ConsoleFiles, signIn: ConsoleConfig | null): { [K in ConsoleOperation]: Handler<K> } {
  const csp = consoleCsp({ issuerOrigin: signIn ? new URL(signIn.issuer).origin : null });
  const config = { issuer: signIn?.issuer ?? null, client_id: signIn?.clientId ?? null, resource: signIn?.audience ?? null, scope: signIn?.scope ?? null };
  return {
    getConsole: (ctx) => serve(ctx, files, 'index.html', csp),
    getReference: (ctx) => serve(ctx, files, 'reference.html', REFERENCE_CSP),
    getConsoleConfig: (ctx) => {
      setConsoleHeaders(ctx, csp);
      ctx.set('Cache-Control', 'no-cache');
      ctx.body = config;
    },
    getConsoleFile: (ctx) => serve(ctx, files, String(ctx.params.file ?? ''), csp),
  };
}

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
