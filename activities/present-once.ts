// A single-use credential presented to its authorization server once, however often the
// activity that presents it runs: a refresh token (a rotating server takes a second presentation
// for theft and revokes the grant) or an authorization code (a second exchange is refused, and
// the connect fails though the first exchange succeeded). An activity runs twice when its first
// run's report was lost: a loaded worker whose run outlived its timeout, or a worker that died
// between the answer and the report. store/refresh-ledger.ts keeps the answers.
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { OAuthActivityDeps } from './oauth-activity-deps';
import type { SealedTokens } from './oauth/oauth-state';
import { inOwnStore } from './in-task-admission';

/** How often a run that found its credential being presented by another asks whether the answer is in. */
const POLL_MS = 200;

/**
 * Runs `present` unless a run before it did, or one now does: then its answer is this one's.
 * `keep: false` (the token was not spent) leaves nothing behind for a later run.
 */
export async function presentOnce(
  deps: OAuthActivityDeps, key: string, connectorId: string, present: () => Promise<{ answer: SealedTokens; keep: boolean }>,
): Promise<SealedTokens> {
  const ledger = deps.oauthStore.refreshes;
  const holder = crypto.randomUUID();
  for (;;) {
    const claim = await inOwnStore(() => ledger.claim<SealedTokens>(key, connectorId, holder));
    if (claim.kind === 'answered') {
      // Worth a warning: a try in a workflow task that overran its budget (in-task-admission.ts) leaves
      // its answer here, and otherwise the worker lost a task or an activity's report (it is
      // overloaded, or died).
      deps.http.logger?.warn({ connectorId }, 'this credential was presented by an earlier run: its answer is taken, the credential not presented again');
      return claim.answer;
    }
    if (claim.kind === 'mine') break;
    await sleep(POLL_MS);
  }
  let outcome: { answer: SealedTokens; keep: boolean };
  try {
    outcome = await present();
  } catch (err) {
    // Refused, or never answered: the next run may present it (a claim left behind goes stale).
    await inOwnStore(() => ledger.release(key, holder)).catch(() => undefined);
    throw err;
  }
  // The answer reaches the workflow even when the database does not take it: only a second run,
  // which is rare, needs it there.
  const settle = inOwnStore(() => (outcome.keep ? ledger.record(key, holder, outcome.answer) : ledger.release(key, holder)));
  await settle.catch((err: unknown) => {
    deps.http.logger?.warn({ connectorId, err: (err as Error).message }, 'the ledger could not be updated; a second run may present this credential again');
  });
  return outcome.answer;
}
