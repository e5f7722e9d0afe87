// The programs the runtimes start around a server (bwrap, setpriv, nsenter, nft, slirp4netns, the
// container engine), by absolute path, from the system's folders only. A server's process starts
// with the preset's env, and spawn looks a bare name up on that env's PATH: a preset (or a
// registry entry) naming PATH would choose what runs as root in the server's place. Nor the
// service's own PATH: under npm it starts with node_modules/.bin, where `nft` is a Node package's
// file tracer that took a ruleset on stdin and answered success.
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';

const found = new Map<string, string>();

const SYSTEM_DIRS = ['/usr/sbin', '/usr/bin', '/sbin', '/bin', '/usr/local/sbin', '/usr/local/bin'];

/** The absolute path of `name` in the system's folders; the bare name when none holds it, so that spawn fails naming it. */
export function systemProgram(name: string): string {
  let path = found.get(name);
  if (path === undefined) {
    path = SYSTEM_DIRS.map((dir) => join(dir, name)).find(executable) ?? name;
    if (path !== name) found.set(name, path);
  }
  return path;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
