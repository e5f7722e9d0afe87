// Test-only npm tools that need a newer Node than the service's oldest supported one (the MCP
// Inspector wants Node >= 22.19, mcp-proxy's tunnel >= 22): kept out of package.json, where
// `npm ci` on Node 20 would print an EBADENGINE warning for each, and installed instead into the
// user-level cache by the toolchain's Node 24 (its npm runs on that Node, so it warns of nothing),
// at the versions pinned here. They run on that Node too.
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '../../platform/logger';
import { withFileLock } from './build-lock';
import { cacheRoot } from './cache-dir';
import { isExecutableFile } from './executable';
import { locateNode24 } from './node24';
import { existsSync } from 'node:fs';

const exec = promisify(execFile);

export const NODE24_TOOLS = {
  '@modelcontextprotocol/inspector': '2.12.0',
  'mcp-proxy': '6.7.19',
} as const;

export type Node24Tool = keyof typeof NODE24_TOOLS;

export interface LocatedTool {
  /** The package's folder (its files are read from here). */
  dir: string;
  /** The Node 24 to run it with. */
  node: string;
  source: 'cache' | 'installed';
}

export async function locateNode24Tool(name: Node24Tool, options: { log: Logger }): Promise<LocatedTool> {
  const node = (await locateNode24(options)).path;
  const version = NODE24_TOOLS[name];
  const prefix = join(cacheRoot(), 'node24-tools', `${name.replace('/', '+')}@${version}`);
  const dir = join(prefix, 'node_modules', name);
  const marker = join(dir, 'package.json');
  if (existsSync(marker)) return { dir, node, source: 'cache' };
  await mkdir(prefix, { recursive: true });
  await withFileLock(`${prefix}.lock`, options.log, async () => {
    if (existsSync(marker)) return;
    options.log.info(`installing ${name}@${version} with Node 24 into ${prefix}`);
    // npm's own script starts with `#!/usr/bin/env node`: Node 24 first on PATH runs npm on it.
    const env = { ...process.env, PATH: `${dirname(node)}:${process.env.PATH ?? ''}` };
    await exec('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', '--omit=dev', `${name}@${version}`], { env, maxBuffer: 64 * 1024 * 1024 });
  });
  if (!existsSync(marker) || !(await isExecutableFile(node))) throw new Error(`installing ${name}@${version} into ${prefix} did not produce ${marker}`);
  return { dir, node, source: 'installed' };
}
