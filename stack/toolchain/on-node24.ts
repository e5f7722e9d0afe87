// `tsx stack/toolchain/on-node24.ts <ava arguments>`: runs ava under Node 24 (npm test's second
// leg, for the tests that need no servers), so a break on the newer runtime shows in CI.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../platform/logger';
import { locateNode24 } from './node24';

const node = await locateNode24({ log: createLogger('toolchain') });
// ava's exports do not name its CLI; it sits at a fixed place in the package.
const avaCli = fileURLToPath(new URL('../../node_modules/ava/entrypoints/cli.mjs', import.meta.url));
process.stdout.write(`ava on ${node.path} (${node.source})\n`);
const child = spawn(node.path, [avaCli, ...process.argv.slice(2)], { stdio: 'inherit' });
child.once('exit', (code, signal) => { process.exitCode = code ?? (signal ? 1 : 0); });
