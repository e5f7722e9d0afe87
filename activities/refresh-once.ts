// The refresh token grant as the activities run it: the refresh token is presented to its
// authorization server once, however often the refresh runs. store/refresh-ledger.ts says why a
// refresh can run twice and what a second presentation costs.
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Ciphertext } from '../platform/secret-box';
import type { OAuthActivityDeps } from './oauth-activity-deps';
import type { OAuthSecrets } from './oauth-secrets';
import type { OAuthContext, SealedTokens } from './oauth/oauth-state';
import { refreshTokens } from './oauth';
import { inOwnStore } from './in-task-admission';

/** How often a run that found its token being presented by another asks whether the answer is in. */
const POLL_MS = 200;

export type RefreshGrant = (connectorId: string, context: OAuthContext, refreshToken: Ciphertext) => Promise<SealedTokens>;

export function createRefreshOnce(deps: OAuthActivityDeps, secrets: OAuthSecrets): RefreshGrant {
  return (id, context, refreshToken) => {
    const previous = secrets.open(id, 'refresh_token', refreshToken);
    return presentOnce(deps, secrets.refreshKey(id, previous), id, async () => {
      const tokens = await refreshTokens({
        authorizationServer: context.authorizationServer, client: secrets.plainClient(id, context.client),
        refreshToken: previous, resource: context.resource, dpopKey: secrets.dpopKey(id, context),
      }, deps.http);
      // A server that does not rotate keeps the previous refresh token valid: the next refresh
      // presents it again, as it may, and must not be handed this answer.
      const rotated = tokens.refreshToken !== null && tokens.refreshToken !== previous;
      return { answer: secrets.sealTokens(id, { ...tokens, refreshToken: tokens.refreshToken ?? previous }), keep: rotated };
    });
  };
}

/**
 * Runs `present` unless a run before it did, or one now does: then its answer is this one's.
 * `keep: false` (the token was not spent) leaves nothing behind for a later run.
 */
async function presentOnce(
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
      deps.http.logger?.warn({ connectorId }, 'this refresh ran before with the same refresh token: its answer is taken, the token not presented again');
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
    deps.http.logger?.warn({ connectorId, err: (err as Error).message }, 'the refresh ledger could not be updated; a second run of this refresh may present its token again');
  });
  return outcome.answer;
}
