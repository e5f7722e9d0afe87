// Which runtime ran the stdio servers at the last start, noted under DATA_DIR. `auto` picks the
// container runtime as soon as podman answers: a machine that gained podman between two starts
// moved its servers from local processes to containers without a word. Connectors still
// connected on the previous runtime find their workload missing and start it again on this one;
// that is said once here, at start, naming both.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../platform/logger';

const NOTE = 'stdio-runtime';

export function noteRuntime(stateDir: string, kind: string, logger: Logger): void {
  const file = join(stateDir, NOTE);
  let previous: string | undefined;
  try {
    previous = readFileSync(file, 'utf8').trim();
  } catch {
    // first start here
  }
  if (previous && previous !== kind) {
    logger.warn({ previous, current: kind },
      `the stdio runtime changed since the last start, from ${previous} to ${kind}: connectors still connected on ${previous} start their servers again on ${kind} (what ran on ${previous} is stopped)`);
  }
  try {
    if (previous !== kind) writeFileSync(file, `${kind}\n`, { mode: 0o600 });
  } catch (error) {
    logger.warn({ err: error }, 'the stdio runtime could not be noted for the next start');
  }
}
