// One workflow per connector. It wires messages, jobs and watches to the entity; the state
// machine decides, the jobs and watches (their own files) do the work through activities.
import {
  ApplicationFailure, CancellationScope, condition, continueAsNew, setHandler, workflowInfo, allHandlersFinished,
} from '@temporalio/workflow';
import { isAllowed, type CallerEvent, type ConnectorEvent } from '../core/connector-states';
import type { Ciphertext } from '../core/secret-box';
import { ConnectorEntity, InvalidTransition, type ApplyOptions, type AuditEvent, type ConnectorData } from './connector-entity';
import {
  FAILURE, callbackUpdate, connectUpdate, createdUpdate, deleteUpdate, disconnectUpdate, refreshUpdate,
  routeQuery, stepUpSignal, upstreamRefusedUpdate, viewQuery,
  type Actor, type CallbackInput, type ConnectInput, type ConnectorInit, type ConnectorView, type UpstreamRefusal,
} from './messages';
import { store } from './activity-proxies';
import { connectFailure, recordsConnectingWithOutcome, runConnect } from './connect-job';
import { completeAuthorization } from './oauth-callback';
import { teardown, teardownMaterial } from './teardown';
import { refreshOnce, runWatch, watchFor, type WatchKind } from './watches';

/** Why the connector is disconnected after its server refused a proxied request. */
function refusalReason(entity: ConnectorEntity, refusal: UpstreamRefusal): string {
  const http = `HTTP ${refusal.status}`;
  if (!refusal.usedToken) return `the MCP server asks for authorization (${http}); connect again to authorize`;
  if (entity.data.oauth.session) return `the MCP server refused the access token (${http}) and a refresh did not help; connect again to authorize`;
  return `the MCP server refused the token (${http}); connect again with a new token or to authorize`;
}

export type ConnectorWorkflowInput = { init: ConnectorInit } | { resume: ConnectorData };

interface Running {
  scope: CancellationScope;
  done: Promise<unknown>;
}

export async function connectorWorkflow(input: ConnectorWorkflowInput): Promise<void> {
  const now = () => new Date().toISOString();
  const created = 'init' in input ? ConnectorEntity.create(input.init, now()) : null;
  const entity = created ? created.entity : new ConnectorEntity((input as { resume: ConnectorData }).resume);
  const settings = entity.data.init.settings;
  const stdioReadyTimeoutMs = settings.stdioReadyTimeoutMs ?? 60_000;
  let projectedSeq = created ? 0 : entity.data.seq;
  let job: Running | null = null;
  let watch: (Running & { kind: WatchKind }) | null = null;
  let deleteRequested = entity.state === 'deleting';
  /** What the delete must undo, captured before `deleting` drops the tokens. */
  let pendingTeardown = deleteRequested ? teardownMaterial(entity) : null;

  /** Transitions applied but not yet written: they go out with the next commit that writes. */
  let unrecorded: AuditEvent[] = [];
  /**
   * Projection writes, one at a time and in order, so that the audit trail is written in order
   * too; the store's version check (store/connector-store.ts) keeps a late write from going back.
   */
  let lastWrite: Promise<void> = Promise.resolve();
  const record = (view: ConnectorView, events: AuditEvent[]): Promise<void> => {
    // Once the state has changed in memory it must reach the record, even if the work that
    // caused it is being cancelled.
    const write = lastWrite.then(() => CancellationScope.nonCancellable(() => store.recordTransition({ view, events })));
    lastWrite = write.catch(() => undefined);
    return write;
  };

  /**
   * Applies an event and writes record and audit; a refused event fails the caller with 409.
   * With `recordWithNext`, the write waits for the next commit: for a step as short as a token
   * probe, one write for both transitions instead of two.
   */
  const commit = async (event: ConnectorEvent, options: ApplyOptions & { recordWithNext?: boolean }): Promise<void> => {
    let audit;
    try {
      audit = entity.apply(event, now(), options);
    } catch (err) {
      if (err instanceof InvalidTransition) throw ApplicationFailure.create({ type: FAILURE.invalidTransition, message: err.message, nonRetryable: true });
      throw err;
    }
    unrecorded.push(audit);
    if (options.recordWithNext) return;
    const events = unrecorded;
    unrecorded = [];
    await record(entity.view(), events);
    projectedSeq = Math.max(projectedSeq, audit.seq);
  };

  const refuseUnlessAllowed = (event: CallerEvent) => {
    if (!isAllowed(entity.state, event)) {
      const reason = `${event} is not possible while the connector is ${entity.state}`;
      throw ApplicationFailure.create({ type: FAILURE.invalidTransition, message: reason, nonRetryable: true });
    }
  };

  const runScoped = (work: () => Promise<unknown>): Running => {
    const scope = new CancellationScope();
    return { scope, done: scope.run(work) };
  };
  const stop = async (running: Running | null) => {
    if (!running) return;
    running.scope.cancel();
    await running.done.catch(() => undefined);
  };
  const stopJob = async () => {
    const current = job;
    await stop(current);
    if (job === current) job = null;
  };
  const stopWatch = async () => {
    const current = watch;
    await stop(current);
    if (watch === current) watch = null;
  };

  /** Keeps the watch in line with the state: started when needed, replaced when the need changes. */
  const syncWatch = async () => {
    const wanted = deleteRequested ? null : watchFor(entity);
    if (watch?.kind === wanted) return;
    await stopWatch();
    if (!wanted) return;
    const running = runScoped(() => runWatch(wanted, { entity, commit, stdioReadyTimeoutMs }));
    watch = { ...running, kind: wanted };
    running.done.catch(() => undefined).finally(() => {
      if (watch?.scope === running.scope) watch = null;
    });
  };

  const currentWatch = (): WatchKind => (watch as { kind: WatchKind } | null)?.kind ?? null;

  setHandler(viewQuery, () => entity.view());
  setHandler(routeQuery, () => entity.route());

  setHandler(createdUpdate, async () => {
    if (projectedSeq < 1) await condition(() => projectedSeq >= 1);
    return entity.view();
  });

  setHandler(
    connectUpdate,
    async (request: ConnectInput) => {
      if (projectedSeq < 1) await condition(() => projectedSeq >= 1);
      await stopWatch(); // an authorization wait or a refresh loop gives way to the new connect
      const recordWithNext = recordsConnectingWithOutcome(entity, request);
      await commit('connect', { actor: request.actor, reason: 'connect requested', recordWithNext });
      const running = runScoped(() => runConnect({ entity, commit, request, stdioReadyTimeoutMs }));
      job = running;
      const done = running.done.finally(() => {
        if (job === running) job = null;
      });
      if (request.respondAsync) {
        done.catch(() => undefined); // the outcome is on the record; nobody awaits it here
        return entity.view();
      }
      try {
        await done;
      } catch (err) {
        throw connectFailure(err, entity.view());
      }
      return entity.view();
    },
    { validator: (_request: ConnectInput) => refuseUnlessAllowed('connect') },
  );

  setHandler(
    callbackUpdate,
    async (input: CallbackInput) => {
      await stopWatch(); // the authorization deadline no longer applies
      const running = runScoped(() => completeAuthorization({ entity, commit }, input));
      job = running;
      try {
        return (await running.done) as Awaited<ReturnType<typeof completeAuthorization>>;
      } finally {
        if (job === running) job = null;
      }
    },
    {
      validator: (input: CallbackInput) => {
        if (entity.state !== 'auth_required' || entity.data.oauth.pending?.stateHash !== input.stateHash) {
          throw ApplicationFailure.create({ type: FAILURE.authorizationFailed, message: 'this authorization request is no longer pending', nonRetryable: true });
        }
      },
    },
  );

  setHandler(
    disconnectUpdate,
    async ({ actor }) => {
      if (entity.state === 'disconnected' && entity.data.disconnectPermanent !== false) return entity.view(); // accepted, nothing to do
      await stopJob();
      await stopWatch();
      const settled = entity.state as string;
      if (settled === 'deleting') return entity.view();
      const material = teardownMaterial(entity);
      // A transient loss being retried ends here, for good and on record, in the caller's name.
      if (settled === 'disconnected') await commit('disconnect', { actor, reason: `disconnected by ${actor}`, permanent: true });
      else await commit('disconnect', { actor, reason: 'disconnect requested' });
      await teardown(material);
      if ((entity.state as string) === 'disconnecting') await commit('disconnect_finished', { actor, reason: `disconnected by ${actor}`, permanent: true });
      return entity.view();
    },
    { validator: (_actor: Actor) => refuseUnlessAllowed('disconnect') },
  );

  setHandler(
    deleteUpdate,
    async ({ actor }) => {
      await condition(() => projectedSeq >= 1);
      if (entity.state !== 'deleting') {
        deleteRequested = true;
        await stopJob();
        await stopWatch();
        pendingTeardown = teardownMaterial(entity);
        await commit('delete', { actor, reason: 'delete requested' });
      }
      return entity.view();
    },
    { validator: (_actor: Actor) => refuseUnlessAllowed('delete') },
  );

  let refreshing: Promise<unknown> | null = null;
  setHandler(
    refreshUpdate,
    async ({ usedToken }) => {
      // Only the first report about a token refreshes; later ones find the new token already there.
      if (usedToken && usedToken !== entity.data.secrets.accessToken) return entity.route();
      refreshing ??= (async () => {
        await stopWatch(); // the refresh loop restarts from the new expiry afterwards
        await refreshOnce({ entity, commit, stdioReadyTimeoutMs });
      })().finally(() => {
        refreshing = null;
      });
      await refreshing;
      return entity.route();
    },
    {
      validator: (_input: { usedToken: Ciphertext | null }) => {
        if (entity.state !== 'connected' || !entity.data.oauth.session?.refreshToken) {
          throw ApplicationFailure.create({ type: FAILURE.invalidTransition, message: 'no refreshable grant', nonRetryable: true });
        }
      },
    },
  );

  setHandler(stepUpSignal, ({ scope }) => {
    const wanted = scope.split(' ').filter(Boolean);
    const granted = new Set((entity.data.oauth.session?.context.scope ?? '').split(' '));
    const known = new Set(entity.data.oauth.stepUpScopes);
    // A server that keeps asking for what it was already given cannot grow this list: no loop.
    const added = wanted.filter((s) => !granted.has(s) && !known.has(s)).slice(0, 20);
    if (added.length) entity.data.oauth.stepUpScopes = [...entity.data.oauth.stepUpScopes, ...added].slice(0, 50);
  });

  /** Stdio gateways never ask for authorization; a report about a replaced token is stale. */
  const refusalApplies = (refusal: UpstreamRefusal) =>
    entity.state === 'connected' && !entity.data.workload && entity.data.secrets.accessToken === refusal.usedToken;

  setHandler(upstreamRefusedUpdate, async (refusal: UpstreamRefusal) => {
    await refreshing?.catch(() => undefined); // a refresh under way may have replaced the token
    if (!refusalApplies(refusal)) return entity.route();
    await stopWatch(); // a refresh loop must not bring back what is being disconnected
    if (!refusalApplies(refusal)) return entity.route();
    entity.data.oauth.challenge = refusal.challenge ?? { resourceMetadata: null, scope: null };
    await commit('connection_lost', { actor: 'service', reason: refusalReason(entity, refusal), permanent: true });
    return entity.route();
  });
  if (created) {
    await record(entity.view(), [created.event]);
    projectedSeq = Math.max(projectedSeq, 1);
  }

  const historyTooLong = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= settings.historyLimit;

  for (;;) {
    await syncWatch();
    const seq = entity.data.seq;
    const watchKind = currentWatch();
    await condition(() => deleteRequested || entity.data.seq !== seq || currentWatch() !== watchKind || (historyTooLong() && job === null));
    if (deleteRequested) break;
    if (historyTooLong() && job === null) {
      // Continue-as-new only between pieces of work, once every handler has returned.
      await stopWatch();
      await condition(allHandlersFinished);
      if (job === null && !deleteRequested) await continueAsNew<typeof connectorWorkflow>({ resume: entity.data });
    }
  }

  await stopJob();
  await stopWatch();
  await condition(() => entity.state === 'deleting');
  if (pendingTeardown) await teardown(pendingTeardown);
  // Every transition must be on record before the record goes, or a late projection of
  // `deleting` would bring it back.
  await condition(() => allHandlersFinished() && projectedSeq >= entity.data.seq);
  await store.removeRecord({ connectorId: entity.data.init.id });
}
