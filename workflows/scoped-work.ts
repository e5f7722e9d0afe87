// A piece of work the workflow can stop: it runs in its own cancellation scope, and stopping it
// cancels the scope and waits until the work has unwound.
import { CancellationScope } from '@temporalio/workflow';

export interface ScopedWork<K extends string = string> {
  kind: K;
  scope: CancellationScope;
  done: Promise<unknown>;
}

export function startScoped<K extends string>(kind: K, work: () => Promise<unknown>): ScopedWork<K> {
  const scope = new CancellationScope();
  return { kind, scope, done: scope.run(work) };
}

export async function stopScoped(work: ScopedWork | null): Promise<void> {
  if (!work) return;
  work.scope.cancel();
  await work.done.catch(() => undefined);
}
