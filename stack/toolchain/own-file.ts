// The files that ship beside the toolchain's code (build.sh, ferretdb.patch), found from source
// (stack/toolchain/) and from the compiled stack in dist/ alike: `npm start` runs the latter.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** stack/toolchain/<name> of the checkout this code runs from. */
export function toolchainFile(name: string): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = dirname(dir)) {
    const candidate = join(dir, 'stack', 'toolchain', name);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return join(here, name); // not found: the error names the expected place
  }
}
