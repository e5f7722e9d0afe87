// The web console's part of `npm run build`: its browser code (console/, Preact) bundled and
// minified by esbuild into dist/console, beside its pages and Swagger UI's prebuilt files for the
// API reference. Everything the browser loads is in that one folder; the API serves nothing else
// (api/console-files.ts), so the CSP can say 'self' and nothing more.
import { copyFile, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';

const COPIED = ['index.html', 'reference.html', 'reference.css', 'icon.svg'];
const SWAGGER_FILES = ['swagger-ui-bundle.js', 'swagger-ui.css'];

export async function buildConsole(root: string, dist: string): Promise<void> {
  const source = join(root, 'console');
  const out = join(dist, 'console');
  await mkdir(out, { recursive: true });
  await build({
    entryPoints: { app: join(source, 'main.tsx'), reference: join(source, 'reference.ts') },
    outdir: out,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome111', 'firefox111', 'safari16.4'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    // No source maps in what is served: they would only show the same code unminified.
    sourcemap: false,
    legalComments: 'eof',
    logLevel: 'warning',
  });
  await build({ entryPoints: [join(source, 'app.css')], outdir: out, bundle: true, minify: true, logLevel: 'warning' });
  for (const name of COPIED) await copyFile(join(source, name), join(out, name));
  const swagger = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  for (const name of SWAGGER_FILES) await copyFile(join(swagger, name), join(out, name));
}
