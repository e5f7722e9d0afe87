// What a person sees of one Go build: one line, saying how long it has run, how long it is
// expected to run, where its output goes, and what a release download would have saved. The Go
// tool's own output (hundreds of `go: downloading` lines) goes to a log file, which a failure
// quotes. On a terminal the line is rewritten in place; into a pipe or a file (CI, `npm test`'s
// log) it is written again once a minute, so that a long build never looks like a hang.
import type { Logger } from '../../platform/logger';
import { BUILD_SECONDS, span, type BuildTarget } from './build-plan';

export interface BuildProgress {
  stop(outcome: 'built' | 'failed'): void;
}

export interface ProgressOptions {
  target: BuildTarget;
  /** Where build.sh's output goes. */
  logFile: string;
  /** Whether a release download that worked would have spared this build. */
  downloadable: boolean;
  log: Logger;
  /** A terminal to rewrite the line on; absent: log lines. */
  terminal?: NodeJS.WriteStream;
  now?: () => number;
}

const TERMINAL_TICK_MS = 1_000;
const LOG_TICK_MS = 60_000;

/** `45 s`, `3 min 05 s`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/** `about 3–6 min`: quiet cores to busy ones (build-plan.ts). */
export function expectedSpan(target: BuildTarget): string {
  const { quiet, busy } = BUILD_SECONDS[target];
  return `about ${span(quiet, busy)}`;
}

const savedBy = (downloadable: boolean) => (downloadable ? '; a release download would have saved it (CONNECTOR__RELEASE_MIRROR)' : '');

/** The line while it runs. */
export function progressLine(o: Pick<ProgressOptions, 'target' | 'logFile' | 'downloadable'>, elapsedS: number): string {
  return `building ${o.target} from Go modules: ${duration(elapsedS)} of ${expectedSpan(o.target)} (first start only)${savedBy(o.downloadable)}; output in ${o.logFile}`;
}

/** The line once it ended. */
export function finalLine(o: Pick<ProgressOptions, 'target' | 'logFile' | 'downloadable'>, elapsedS: number, outcome: 'built' | 'failed'): string {
  if (outcome === 'failed') return `building ${o.target} failed after ${duration(elapsedS)}; its output is in ${o.logFile}`;
  return `built ${o.target} in ${duration(elapsedS)} (expected ${expectedSpan(o.target)})${savedBy(o.downloadable)}`;
}

export function startProgress(o: ProgressOptions): BuildProgress {
  const now = o.now ?? Date.now;
  const started = now();
  const elapsedS = () => (now() - started) / 1000;
  const fields = () => ({ build: o.target, elapsedS: Math.round(elapsedS()) });
  const terminal = o.terminal;
  const show = terminal
    // Cut to the terminal's width: a wrapped line could not be rewritten in place.
    ? () => terminal.write(`\r\x1b[K${progressLine(o, elapsedS()).slice(0, terminal.columns ? terminal.columns - 1 : undefined)}`)
    : () => o.log.info(fields(), progressLine(o, elapsedS()));
  show();
  const timer = setInterval(show, terminal ? TERMINAL_TICK_MS : LOG_TICK_MS);
  timer.unref();
  return {
    stop(outcome) {
      clearInterval(timer);
      if (terminal) terminal.write('\r\x1b[K');
      o.log[outcome === 'built' ? 'info' : 'error'](fields(), finalLine(o, elapsedS(), outcome));
    },
  };
}
