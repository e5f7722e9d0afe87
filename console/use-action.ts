// A user's action on the API (sign in, create, connect, delete...): one at a time, its error
// kept to be shown beside the form, its buttons disabled while it runs.
import { useState } from 'preact/hooks';

export interface Action {
  busy: boolean;
  error: unknown;
  run: (action: () => Promise<unknown>) => Promise<void>;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}
