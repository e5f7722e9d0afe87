// `tsx stack/toolchain/ensure.ts [--kube]`: makes sure the real servers' binaries exist (building
// them once, with visible progress) and prints where each was found. `npm test` runs it before ava
// so that a first build never happens inside a test's timeout.
import { createLogger } from '../../core/logger';
import { KUBE_BINARIES, locateBinary, SERVER_BINARIES, type BinaryName } from './binaries';

async function main(argv: string[]): Promise<number> {
  const unknown = argv.filter((arg) => arg !== '--kube');
  if (unknown.length > 0) {
    process.stderr.write(`usage: tsx stack/toolchain/ensure.ts [--kube]\nunknown arguments: ${unknown.join(' ')}\n`);
    return 2;
  }
  const names: BinaryName[] = [...SERVER_BINARIES, ...(argv.includes('--kube') ? KUBE_BINARIES : [])];
  const log = createLogger('toolchain');
  // One at a time: builds are CPU-bound, and running them side by side only makes each slower.
  for (const name of names) {
    try {
      const found = await locateBinary(name, { log });
      process.stdout.write(`${name.padEnd(24)} ${found.source.padEnd(10)} ${found.path}\n`);
    } catch (error) {
      process.stderr.write(`${(error as Error).message}\n`);
      return 1;
    }
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
