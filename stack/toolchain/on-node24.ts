// `tsx stack/toolchain/on-node24.ts [ava arguments]`: runs ava under the toolchain's Node 24, the
// active LTS: npm test runs the whole suite this way, and a short leg on Node 20 after it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../platform/logger';
import { locateNode24 } from './node24';
import { reachableNode } from './reachable-node';

const node = await locateNode24({ log: createLogger('toolchain') });
// ava's exports do not name its CLI; it sits at a fixed place in the package.
const avaCli = fileURLToPath(new URL('../../node_modules/ava/entrypoints/cli.mjs', import.meta.url));
// The tests' stdio servers run as uids of their own with the tests' own Node (process.execPath):
// the cache under a home folder is closed to them, the checkout is not.
const runnable = await reachableNode(node.path, fileURLToPath(new URL('../../node_modules/.cache/connector-registry', import.meta.url)));
process.stdout.write(`ava on ${runnable} (${node.source})\n`);
const child = spawn(runnable, [avaCli, ...process.argv.slice(2)], { stdio: 'inherit' });
child.once('exit', (code, signal) => { process.exitCode = code ?? (signal ? 1 : 0); });
