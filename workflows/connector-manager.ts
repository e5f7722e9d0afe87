// The connector workflow's state and behaviour, one method per message (the entity-manager
// pattern of Temporal's safe-message-handlers sample). It holds the entity, the job a caller
// waits on, the watch that runs while nobody waits, and the projection. What may happen in
// which state is asked of contract/connector-states.ts; this class only carries it out.
//
// Handlers that change state run one at a time under `lock`, so one never sees another half
// done. Jobs and watches run outside the lock, in their own cancellation scopes, so that a
// disconnect or delete can stop them.
import { ApplicationFailure, allHandlersFinished, condition, continueAsNew, workflowInfo } from '@temporalio/workflow';
import { Mutex } from 'async-mutex';
import {
  acceptsCallback, acceptsUpstreamReport, disconnectPlan, isAllowed, refusal, type CallerEvent,
} from '../contract/connector-states';
import type { ConnectorRecord } from '../contract/connector-record';
import { FAILURE } from '../contract/failures';
import { ConnectorEntity, type ConnectorData } from './connector-entity';
import { connectFailure, recordsConnectingWithOutcome, runConnect } from './connect-job';
import type { UpstreamBinding } from '../contract/upstream-inputs';
import type {
  Actor, ApprovalRulesInput, CallbackInput, CallbackOutcome, ConnectInput, ConnectorInit, RouteView, StepUpRequest, StepUpView, UpstreamRefusal,
} from './messages';
import { authorizationOpen, offerStepUp, reauthorize } from './reauthorization';
import { completeAuthorization } from './oauth-callback';
import { Projection, type CommitOptions } from './projection';
import { startScoped, stopScoped, type ScopedWork } from './scoped-work';
import { teardown, teardownMaterial, type TeardownMaterial } from './teardown';
import { refreshOnce, runWatch, watchFor, type WatchContext, type WatchKind } from './watches';
import { store } from './activity-proxies';
import { renewable } from './client-credentials';
import { withChangesBuiltIn } from './code-changes';

export type ConnectorWorkflowInput = { init: ConnectorInit } | { resume: ConnectorData };

type JobKind = 'connect' | 'callback' | 'refresh';

export class ConnectorManager {
  readonly entity: ConnectorEntity;
  private readonly projection: Projection;
  private readonly lock = new Mutex();
  /** The creation's audit event, written once the workflow runs (a new connector only). */
  private readonly createdEvent;
  private job: ScopedWork<JobKind> | null = null;
  private watch: ScopedWork<NonNullable<WatchKind>> | null = null;
  private deleteRequested: boolean;
  /** What the delete must undo, captured before `deleting` drops the tokens. */
  private pendingTeardown: TeardownMaterial | null;

  constructor(input: ConnectorWorkflowInput) {
    const created = 'init' in input ? ConnectorEntity.create(input.init, new Date().toISOString()) : null;
    this.entity = created ? created.entity : new ConnectorEntity((input as { resume: ConnectorData }).resume);
    this.createdEvent = created?.event ?? null;
    this.projection = new Projection(this.entity, created ? 0 : this.entity.data.seq);
    this.deleteRequested = this.entity.state === 'deleting';
    this.pendingTeardown = this.deleteRequested ? teardownMaterial(this.entity) : null;
  }

  // Queries

  record(): ConnectorRecord {
    return this.entity.record();
  }

  route(): RouteView {
    return this.entity.route();
  }

  // Validators: refuse before anything reaches history, with the state machine's reason.

  validateCaller(event: CallerEvent): void {
    const reason = refusal(this.entity.state, event);
    if (reason) throw ApplicationFailure.create({ type: FAILURE.invalidTransition, message: reason, nonRetryable: true });
  }

  validateRulesChange(): void {
    if (this.deleteRequested) throw ApplicationFailure.create({ type: FAILURE.invalidTransition, message: 'the connector is being deleted', nonRetryable: true });
  }

  validateCallback(input: CallbackInput): void {
    if (!this.answeredCallback(input)) this.validatePendingCallback(input);
  }

  private validatePendingCallback(input: CallbackInput): void {
    if (!this.awaitsCallback(input)) {
      throw ApplicationFailure.create({ type: FAILURE.authorizationFailed, message: 'this authorization request is no longer pending', nonRetryable: true });
    }
  }

  validateRefresh(): void {
    if (!this.hasRefreshableGrant()) {
      throw ApplicationFailure.create({ type: FAILURE.invalidTransition, message: 'no refreshable grant', nonRetryable: true });
    }
  }

  // Updates and signals

  async created(): Promise<ConnectorRecord> {
    await this.projection.untilProjected(1);
    return this.record();
  }

  async connect(request: ConnectInput): Promise<ConnectorRecord> {
    const job = await this.lock.runExclusive(async () => {
      await this.projection.untilProjected(1);
      // Validated when accepted, but an earlier connect may have moved the state on while this one
      // waited for the lock: refuse before stopping anything, or it would cancel that connect and
      // leave the connector `connecting` with nothing running.
      this.validateCaller('connect');
      await this.stopJob(); // a proxy-driven refresh gives way to the new connect
      await this.stopWatch(); // so does an authorization wait or a refresh loop
      const recordWithNext = recordsConnectingWithOutcome(this.entity, request);
      // A connect replaces what the last one bound: its headers, and the URL its variables made.
      this.entity.data.binding = request.binding ?? null;
      await this.commit('connect', { actor: request.actor, reason: `connect requested${bindingNote(request.binding)}`, recordWithNext });
      return this.startJob('connect', () => runConnect({ ...this.workContext(), request }));
    });
    if (request.respondAsync) {
      job.done.catch(() => undefined); // the outcome is on the record; nobody awaits it here
      return this.record();
    }
    try {
      await job.done;
    } catch (err) {
      throw connectFailure(err, this.record());
    }
    return this.record();
  }

  async callback(input: CallbackInput): Promise<CallbackOutcome> {
    const answered = this.answeredCallback(input);
    if (answered) return answered;
    const job = await this.lock.runExclusive(async () => {
      // A connect that restarted the authorization may have come first.
      this.validatePendingCallback(input);
      await this.stopWatch(); // the authorization deadline no longer applies
      return this.startJob('callback', () => completeAuthorization(this.workContext(), input));
    });
    const outcome = (await job.done) as CallbackOutcome;
    this.entity.data.lastCallback = { stateHash: input.stateHash, outcome };
    return outcome;
  }

  /**
   * The registry withdrew the connector's preset (its server was deleted there): the connector is
   * disconnected by the same path as a caller's disconnect, with the registry's reason. A state
   * that refuses a disconnect (created, deleting) is left as it is: it cannot connect any more.
   */
  async presetWithdrawn({ reason }: { reason: string }): Promise<void> {
    if (refusal(this.entity.state, 'disconnect')) return;
    await this.disconnect({ actor: 'registry' }, reason);
  }

  async disconnect({ actor }: Actor, why?: string): Promise<ConnectorRecord> {
    const reason = why ?? `disconnected by ${actor}`;
    return this.lock.runExclusive(async () => {
      if (disconnectPlan(this.entity.state, this.entity.data.disconnectPermanent) === 'none') return this.record();
      await this.stopJob();
      await this.stopWatch();
      // The work just stopped may have moved the state on before it unwound.
      const plan = disconnectPlan(this.entity.state, this.entity.data.disconnectPermanent);
      if (plan === 'end_retry') {
        // A transient loss being retried ends here, for good and on record, in the caller's name.
        await this.commit('disconnect', { actor, reason, permanent: true });
      } else if (plan === 'teardown') {
        const material = teardownMaterial(this.entity);
        await this.commit('disconnect', { actor, reason: 'disconnect requested' });
        await teardown(material);
        if (isAllowed(this.entity.state, 'disconnect_finished')) {
          await this.commit('disconnect_finished', { actor, reason, permanent: true });
        }
      }
      return this.record();
    });
  }

  /** The owner replaced the approval rules: on record (projection and audit) before the answer. */
  async setApprovalRules({ actor, rules }: ApprovalRulesInput): Promise<ConnectorRecord> {
    return this.lock.runExclusive(async () => {
      await this.projection.untilProjected(1);
      this.validateRulesChange();
      await this.projection.write([this.entity.setApprovalRules(rules, new Date().toISOString(), actor)]);
      return this.record();
    });
  }

  async delete({ actor }: Actor): Promise<ConnectorRecord> {
    return this.lock.runExclusive(async () => {
      await this.projection.untilProjected(1);
      if (this.deleteRequested) return this.record();
      this.deleteRequested = true; // before the stops: the main loop must not start a new watch
      await this.stopJob();
      await this.stopWatch();
      this.pendingTeardown = teardownMaterial(this.entity);
      await this.commit('delete', { actor, reason: 'delete requested' });
      return this.record();
    });
  }

  /** The proxy saw `usedToken` refused: refresh once, however many requests report the same token. */
  async refresh({ usedToken }: { usedToken: string | null }): Promise<RouteView> {
    const job = await this.lock.runExclusive(async () => {
      if (usedToken && usedToken !== this.entity.data.secrets.accessToken) return null; // already replaced
      if (this.job?.kind === 'refresh') return this.job; // join the refresh under way
      if (!this.hasRefreshableGrant() || this.job) return null;
      await this.stopWatch(); // the refresh loop restarts from the new expiry afterwards
      // A failure leaves the state to the proxy's refusal report, which asks the user to authorize anew.
      return this.startJob('refresh', () => refreshOnce(this.workContext(), undefined, { onFailure: 'report' }));
    });
    await job?.done.catch(() => undefined);
    return this.route();
  }

  /** A 403 insufficient_scope to `usedToken`: a step-up authorization URL on offer, the connector still connected. */
  async stepUpAuthorization(request: StepUpRequest): Promise<StepUpView> {
    return this.lock.runExclusive(async () => {
      const d = this.entity.data;
      if (!acceptsUpstreamReport(d.state) || d.workload) return { route: this.route(), authorizationUrl: null, reason: `the connector is ${d.state}` };
      if (d.secrets.accessToken !== request.usedToken) {
        return { route: this.route(), authorizationUrl: null, reason: 'the token reported is no longer the connector\'s', stale: true };
      }
      const offer = await offerStepUp({ entity: this.entity, commit: this.commit }, request);
      return { route: this.route(), ...offer };
    });
  }

  /**
   * The upstream refused a request in a way no refresh mends: the user is asked to authorize
   * anew (auth_required), or, when no authorization can be started, disconnected with the reason.
   */
  async upstreamRefused(refusal: UpstreamRefusal): Promise<RouteView> {
    return this.lock.runExclusive(async () => {
      if (this.job?.kind === 'refresh') await this.job.done.catch(() => undefined); // it may replace the token
      if (!this.refusalApplies(refusal)) return this.route();
      await this.stopWatch(); // a refresh loop must not bring back what is being replaced
      if (!this.refusalApplies(refusal)) return this.route();
      await reauthorize({ entity: this.entity, commit: this.commit }, refusal);
      return this.route();
    });
  }

  // The main loop

  async run(): Promise<void> {
    if (this.createdEvent) await this.projection.write([this.createdEvent]);
    for (;;) {
      await this.syncWatch();
      const seq = this.entity.data.seq;
      const watchKind = this.watch?.kind ?? null;
      await condition(() => this.deleteRequested || this.entity.data.seq !== seq || (this.watch?.kind ?? null) !== watchKind || this.mayContinueAsNew());
      if (this.deleteRequested) break;
      if (this.mayContinueAsNew()) await this.continueAsNew();
    }
    await this.finishDelete();
  }

  private mayContinueAsNew(): boolean {
    const info = workflowInfo();
    const due = info.continueAsNewSuggested || info.historyLength >= this.entity.data.init.settings.historyLimit || this.connectBehind();
    return due && this.job === null && this.uncutWork === 0;
  }

  /**
   * A connect (or the callback that ends one) is most of its run's history, and a worker that
   * restarts replays all of it at the next renewal: once one has settled into a refresh wait, the
   * run continues as new, so that what a renewal replays is the waits since. The run would reach
   * its history limit a few renewals later anyway; this only moves that continue-as-new forward.
   */
  private connectBehind(): boolean {
    return this.connectEndedInRun && this.entity.data.init.freshRunAfterConnect === true && this.watch?.kind === 'refresh';
  }

  /** A connect or callback job ended in this run (see connectBehind). */
  private connectEndedInRun = false;

  /** Continue-as-new only between pieces of work, once every handler has returned. */
  private async continueAsNew(): Promise<void> {
    await this.stopWatch();
    await condition(allHandlersFinished);
    if (this.job === null && !this.deleteRequested) await continueAsNew({ resume: { ...this.entity.data, init: withChangesBuiltIn(this.entity.data.init) } });
  }

  /** Work under way that a continue-as-new waits for (watches.ts). */
  private uncutWork = 0;
  private uncut = async <T>(work: () => Promise<T>): Promise<T> => {
    this.uncutWork += 1;
    try {
      return await work();
    } finally {
      this.uncutWork -= 1;
    }
  };

  private async finishDelete(): Promise<void> {
    await this.stopJob();
    await this.stopWatch();
    await condition(() => this.entity.state === 'deleting');
    if (this.pendingTeardown) await teardown(this.pendingTeardown);
    // Every transition must be on record before the record goes, or a late projection of
    // `deleting` would bring it back.
    await condition(allHandlersFinished);
    await this.projection.untilProjected();
    await store.removeRecord({ connectorId: this.entity.data.init.id });
  }

  // Jobs and watches

  private commit = (event: Parameters<Projection['commit']>[0], options: CommitOptions) => this.projection.commit(event, options);

  private workContext(): WatchContext {
    const { stdioReadyTimeoutMs } = this.entity.data.init.settings;
    return { entity: this.entity, commit: this.commit, stdioReadyTimeoutMs, uncut: this.uncut };
  }

  private startJob(kind: JobKind, work: () => Promise<unknown>): ScopedWork<JobKind> {
    const job = startScoped(kind, work);
    this.job = job;
    job.done.catch(() => undefined).finally(() => {
      if (this.job === job) this.job = null;
      if (kind !== 'refresh') this.connectEndedInRun = true;
    });
    return job;
  }

  private async stopJob(): Promise<void> {
    const current = this.job;
    await stopScoped(current);
    if (this.job === current) this.job = null;
  }

  private async stopWatch(): Promise<void> {
    const current = this.watch;
    await stopScoped(current);
    if (this.watch === current) this.watch = null;
  }

  /** Keeps the watch in line with the state: started when needed, replaced when the need changes. */
  private async syncWatch(): Promise<void> {
    const wanted = this.deleteRequested ? null : watchFor(this.entity);
    if ((this.watch?.kind ?? null) === wanted) return;
    await this.stopWatch();
    if (!wanted) return;
    const watch = startScoped(wanted, () => runWatch(wanted, this.workContext()));
    this.watch = watch;
    watch.done.catch(() => undefined).finally(() => {
      if (this.watch === watch) this.watch = null;
    });
  }

  // What the state says

  /** The outcome this connector gave the same callback before (the API's second try of one it lost). */
  private answeredCallback(input: CallbackInput): CallbackOutcome | null {
    const last = this.entity.data.lastCallback;
    return last?.stateHash === input.stateHash ? last.outcome : null;
  }

  private awaitsCallback(input: CallbackInput): boolean {
    return acceptsCallback(this.entity.state) && this.entity.data.oauth.pending?.stateHash === input.stateHash && authorizationOpen(this.entity);
  }

  private hasRefreshableGrant(): boolean {
    return acceptsUpstreamReport(this.entity.state) && renewable(this.entity.data.oauth.session);
  }

  /** Stdio gateways never ask for authorization; a report about a replaced token is stale. */
  private refusalApplies(report: UpstreamRefusal): boolean {
    const d = this.entity.data;
    return acceptsUpstreamReport(d.state) && !d.workload && d.secrets.accessToken === report.usedToken;
  }
}

/** What the audit says of a connect's headers, variables and env: names, and variables' values, never a header's or env value. */
function bindingNote(binding: UpstreamBinding | undefined): string {
  if (!binding) return '';
  const parts = [
    ...(binding.headers.length ? [`headers ${binding.headers.map((h) => h.name).join(', ')}`] : []),
    ...(binding.env?.length ? [`environment ${binding.env.map((e) => e.name).join(', ')}`] : []),
    ...(Object.keys(binding.variables).length ? [`URL variables ${Object.entries(binding.variables).map(([k, v]) => `${k}=${v}`).join(', ')}`] : []),
  ];
  return parts.length ? ` (${parts.join('; ')})` : '';
}
