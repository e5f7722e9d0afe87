// A proxy process's ear on the change feed (store/change-feed.ts): every interval it reads the
// entries after the last it saw and has its caches forget what they name, so that a disconnect,
// a delete or a new token made anywhere is seen here within the interval plus one route query,
// not after the route cache's TTL. The first read starts at the feed's end: a process that has
// just started has nothing to forget. A reader that fell behind further than the feed keeps (a
// gap in the numbers) forgets every route.
import type { Logger } from '../platform/logger';
import type { Change, ChangeFeed } from '../store/change-feed';
import { startPeriodicPass, type PeriodicPass } from './periodic-pass';

export interface ChangeListenerOptions {
  feed: Pick<ChangeFeed, 'newest' | 'after'>;
  intervalMs: number;
  /** Told of each change, in order. */
  forget(change: Change): void;
  /** Told when entries were missed: forget everything. */
  forgetAll(): void;
  logger: Logger;
}

export type ChangeListener = PeriodicPass<void, []>;

const BATCH = 500;

export function startChangeListener(options: ChangeListenerOptions): ChangeListener {
  let seen: number | null = null;
  let failing = false;

  async function read(): Promise<void> {
    if (seen === null) {
      seen = await options.feed.newest();
      return;
    }
    for (;;) {
      const entries = await options.feed.after(seen, BATCH);
      if (entries.length && entries[0]!.seq !== seen + 1) options.forgetAll();
      for (const entry of entries) for (const change of entry.changes) options.forget(change);
      if (entries.length) seen = entries.at(-1)!.seq;
      if (entries.length < BATCH) return;
    }
  }

  // A failing feed is said once, not every interval; routes then age out as before
  // (CONNECTOR__ROUTE_CACHE_TTL_MS): slower, never wrong for longer.
  const pass = () => read().then(() => {
    if (failing) options.logger.info('the change feed answers again');
    failing = false;
  }, (err: unknown) => {
    if (!failing) options.logger.warn({ err: (err as Error).message }, 'reading the change feed failed; routes refresh by age until it answers');
    failing = true;
  });
  return startPeriodicPass({ pass, nothing: undefined, intervalMs: options.intervalMs, logger: options.logger, what: 'reading the change feed' });
}
