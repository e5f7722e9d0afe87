// What installing the missing binaries is going to cost, said before the first Go build starts,
// so that a newcomer is not left guessing for forty minutes: each build's expected time, and
// which of them a release download would have made a matter of seconds (all but FerretDB, which
// is built on purpose for its patch). Two figures each, since the machine's load decides more
// than the build does: cold on 2 quiet cores (the toolchain notes: Temporal CLI 157 s, FerretDB
// 55 s, etcd 32 s, kwok 154 s, the control plane about 8 min), and on 2 cores busy with other
// work (measured 2026-11-25 beside seven other builds and test runs: temporal 328 s, ferretdb
// 383 s, etcd 164 s, kwok 678 s, the control plane 1274 s and 29 min in issue 28's run, helm
// 213 s after the control plane had filled the module cache: 5 min allowed for it).
/** What build.sh builds: one target may make several binaries. */
export type BuildTarget = 'temporal' | 'ferretdb' | 'etcd' | 'kwok' | 'kube' | 'helm';

export const BUILD_SECONDS: Record<BuildTarget, { quiet: number; busy: number }> = {
  temporal: { quiet: 200, busy: 330 },
  ferretdb: { quiet: 65, busy: 385 },
  etcd: { quiet: 35, busy: 165 },
  kwok: { quiet: 155, busy: 680 },
  kube: { quiet: 480, busy: 1_740 },
  helm: { quiet: 240, busy: 300 },
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

/** `35 s–3 min`, `8–29 min`. */
export function span(quiet: number, busy: number): string {
  const [low, high] = [minutes(quiet), minutes(busy)];
  return low.endsWith(' min') ? `${low.slice(0, -' min'.length)}–${high}` : `${low}–${high}`;
}

const sum = (builds: readonly PlannedBuild[], key: 'quiet' | 'busy') => builds.reduce((total, b) => total + BUILD_SECONDS[b.target][key], 0);

/** The lines to print before the builds start (none when nothing is to be built). */
export function describeBuildPlan(builds: readonly PlannedBuild[]): string[] {
  if (builds.length === 0) return [];
  const avoidable = builds.filter((b) => b.downloadable);
  return [
    `toolchain: ${builds.length} Go build${builds.length > 1 ? 's' : ''} to run, one at a time: about ${minutes(sum(builds, 'quiet'))} on 2 quiet cores, up to ${minutes(sum(builds, 'busy'))} on 2 busy ones (once only, then cached):`,
    ...builds.map((b) => `  ${b.target.padEnd(9)} ~${span(BUILD_SECONDS[b.target].quiet, BUILD_SECONDS[b.target].busy).padEnd(11)} ${b.binaries.join(', ')}: ${b.why}`),
    avoidable.length > 0
      ? `toolchain: a release download would have avoided ${avoidable.map((b) => b.target).join(', ')} (about ${span(sum(avoidable, 'quiet'), sum(avoidable, 'busy'))} of it): with internet access, or CONNECTOR__RELEASE_MIRROR naming a mirror of the releases`
      : 'toolchain: no download would have avoided these builds',
  ];
}
