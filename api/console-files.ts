// The web console's files, as `npm run build` leaves them in dist/console (stack/build-console.ts).
// Listed once at start: a request can only ever name one of these files, never a path of its own,
// so no traversal is possible whatever the URL holds. Files are streamed from disk when asked
// (the API reference's renderer is a megabyte and a half that most processes never serve).
import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

export interface ConsoleFile {
  path: string;
  type: string;
  size: number;
  /** Weak validator from size and mtime: the files change only with a new build. */
  etag: string;
}

export interface ConsoleFiles {
  /** Where they were found; null: not built (from source without `npm run build`). */
  dir: string | null;
  get(name: string): ConsoleFile | undefined;
  open(file: ConsoleFile): Readable;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/**
 * dist/console beside the compiled entry points (this module is bundled into dist/*.mjs), or,
 * running from source, the one `npm run build` wrote at the repository's root.
 */
export function defaultConsoleDir(): string | null {
  const candidates = [new URL('./console/', import.meta.url), new URL('../dist/console/', import.meta.url)].map((u) => fileURLToPath(u));
  return candidates.find((dir) => existsSync(join(dir, 'index.html'))) ?? null;
}

export function loadConsoleFiles(dir: string | null): ConsoleFiles {
  const files = new Map<string, ConsoleFile>();
  for (const name of dir ? readdirSync(dir) : []) {
    const type = TYPES[extname(name)];
    const path = join(dir!, name);
    const stat = statSync(path);
    if (!type || !stat.isFile()) continue;
    files.set(name, { path, type, size: stat.size, etag: `W/"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"` });
  }
  return { dir, get: (name) => files.get(name), open: (file) => createReadStream(file.path) };
}
