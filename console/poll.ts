// Live views poll the REST API (the service has no event stream to offer): every few seconds
// while the tab is visible, at once when it becomes visible again, never two requests at a time.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';

export interface Polled<T> {
  data: T | undefined;
  error: ApiError | Error | undefined;
  /** Fetch now (after an action), without waiting for the next tick. */
  refresh: () => Promise<void>;
  /** Show this value now (an action's answer is the newest state there is). */
  set: (value: T) => void;
}

export function usePolling<T>(load: () => Promise<T>, intervalMs: number, deps: unknown[]): Polled<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const busy = useRef(false);
  const alive = useRef(true);
  const refresh = useCallback(async () => {
    if (busy.current) return;
    busy.current = true;
    try {
      const value = await load();
      if (alive.current) {
        setData(value);
        setError(undefined);
      }
    } catch (err) {
      if (alive.current) setError(err as Error);
    } finally {
      busy.current = false;
    }
  }, deps);
  useEffect(() => {
    alive.current = true;
    setData(undefined);
    void refresh();
    const timer = setInterval(() => { if (!document.hidden) void refresh(); }, intervalMs);
    const visible = () => { if (!document.hidden) void refresh(); };
    document.addEventListener('visibilitychange', visible);
    return () => {
      alive.current = false;
      clearInterval(timer);
      document.removeEventListener('visibilitychange', visible);
    };
  }, [refresh, intervalMs]);
  const set = useCallback((value: T) => {
    setData(value);
    setError(undefined);
  }, []);
  return { data, error, refresh, set };
}
