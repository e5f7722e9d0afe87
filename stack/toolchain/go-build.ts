// Runs build.sh for one target and streams its progress, because a cold build takes minutes and a
// silent wait that long looks like a hang. Go is quiet while compiling, hence the heartbeat.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Logger } from '../../platform/logger';
import { cacheRoot } from './cache-dir';
import { toolchainFile } from './own-file';
import { VERSIONS } from './versions';

export type BuildTarget = 'temporal' | 'ferretdb' | 'etcd' | 'kwok' | 'kube' | 'helm';

const BUILD_SCRIPT = toolchainFile('build.sh');
const HEARTBEAT_MS = 20_000;
const TAIL_LINES = 30;

export async function runGoBuild(target: BuildTarget, log: Logger): Promise<void> {
  const started = Date.now();
  const elapsedS = () => Math.round((Date.now() - started) / 1000);
  const tail: string[] = [];
  const child = spawn('bash', [BUILD_SCRIPT, target], {
    env: { ...process.env, ...VERSIONS, CONNECTOR__CACHE: cacheRoot() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const onLine = (line: string) => {
    tail.push(line);
    if (tail.length > TAIL_LINES) tail.shift();
    log.info({ build: target, elapsedS: elapsedS() }, `[${target} ${elapsedS()} s] ${line}`);
  };
  createInterface({ input: child.stdout }).on('line', onLine);
  createInterface({ input: child.stderr }).on('line', onLine);
  const heartbeat = setInterval(() => {
    log.info({ build: target, elapsedS: elapsedS() }, `[${target} ${elapsedS()} s] still building...`);
  }, HEARTBEAT_MS);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    if (code !== 0) {
      throw new Error(`building ${target} with Go failed (exit ${code}); last output:\n${tail.join('\n')}`);
    }
  } finally {
    clearInterval(heartbeat);
  }
}
