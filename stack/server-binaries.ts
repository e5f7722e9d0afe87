// The embedded servers' binaries, found or installed before the start-up is timed: on a first
// start without a release download they are built from Go modules, which takes minutes, and the
// plan says beforehand which builds will run and for about how long (build-plan.ts).
import type { Config } from '../config/config';
import type { Logger } from '../platform/logger';
import { planInstalls, resolveBinary, type BinaryName } from './toolchain/binaries';
import { describeBuildPlan } from './toolchain/build-plan';

export type ServerBinaries = Partial<Record<'temporal' | 'ferretdb', string>>;

/** The path of each server this configuration runs here (none for an external Temporal or MongoDB). */
export async function serverBinaries(config: Config, log: Logger): Promise<ServerBinaries> {
  const names: ('temporal' | 'ferretdb')[] = [...(config.temporal.address ? [] : ['temporal' as const]), ...(config.mongo.uri ? [] : ['ferretdb' as const])];
  if (names.length === 0) return {};
  for (const line of describeBuildPlan(await planInstalls(names satisfies BinaryName[], log))) log.info(line);
  const found: ServerBinaries = {};
  // One at a time: builds are CPU-bound, and side by side each only gets slower.
  for (const name of names) found[name] = await resolveBinary(name, { log, download: false });
  return found;
}
