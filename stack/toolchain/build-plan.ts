// What installing the missing binaries is going to cost, said before the first Go build starts,
// so that a newcomer is not left guessing for forty minutes: each build's expected time, and
// which of them a release download would have made a matter of seconds (all but FerretDB, which
// is built on purpose for its patch). Cold builds on 2 quiet cores, from the measurements in
// the README and the toolchain notes; a busy machine takes longer (the control plane was seen
// to take 29 minutes beside other work).
import type { BuildTarget } from './go-build';

export const COLD_BUILD_SECONDS: Record<BuildTarget, number> = {
  temporal: 200,
  ferretdb: 65,
  etcd: 35,
  kwok: 155,
  kube: 480,
  helm: 240,
};

export interface PlannedBuild {
  target: BuildTarget;
  binaries: readonly string[];
  /** Why no download took its place: the download's failure, or that this one is built on purpose. */
  why: string;
  /** Whether a download that worked would have spared the build. */
  downloadable: boolean;
}

const minutes = (seconds: number) => (seconds < 90 ? `${seconds} s` : `${Math.round(seconds / 60)} min`);

/** The lines to print before the builds start (none when nothing is to be built). */
export function describeBuildPlan(builds: readonly PlannedBuild[]): string[] {
  if (builds.length === 0) return [];
  const total = builds.reduce((sum, b) => sum + COLD_BUILD_SECONDS[b.target], 0);
  const avoidable = builds.filter((b) => b.downloadable);
  return [
    `toolchain: ${builds.length} Go build${builds.length > 1 ? 's' : ''} to run, one at a time, about ${minutes(total)} cold on 2 quiet cores (longer on a busy machine; once only, then cached):`,
    ...builds.map((b) => `  ${b.target.padEnd(9)} ~${minutes(COLD_BUILD_SECONDS[b.target]).padEnd(7)} ${b.binaries.join(', ')}: ${b.why}`),
    avoidable.length > 0
      ? `toolchain: a release download would have avoided ${avoidable.map((b) => b.target).join(', ')} (about ${minutes(avoidable.reduce((sum, b) => sum + COLD_BUILD_SECONDS[b.target], 0))} of it): with internet access, or CONNECTOR__RELEASE_MIRROR naming a mirror of the releases`
      : 'toolchain: no download would have avoided these builds',
  ];
}
