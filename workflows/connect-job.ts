// The work behind a connect. What to do depends on the connector's kind: a managed stdio
// workload, a remote server with a given token, or a remote server that needs OAuth. Each step is
// an activity; this file orders them and turns their outcome into a transition.
import { FAILURE, isFailureType, type FailureType } from '../contract/failures';
import type { ConnectorRecord } from '../contract/connector-record';
import { ApplicationFailure, isCancellation } from '@temporalio/workflow';
import type { ConnectorEvent } from '../contract/connector-states';
import type { ApplyOptions, ConnectorEntity } from './connector-entity';
import type { ConnectInput } from './messages';
import type { Ciphertext } from '../contract/ciphertext';
import type { StartWorkloadInput } from '../activities/workloads/activities';
import { inTaskFirst, inTaskTry, probe, remote, workloads } from './activity-proxies';
import { IN_TASK_TRY_ONCE, takes } from './code-changes';
import type { ProbeResult } from '../activities/mcp-probe';
import { beginAuthorization } from './oauth-begin';
import { connectWithServiceGrant, connectsWithServiceGrant } from './client-credentials';

export interface ConnectJob {
  entity: ConnectorEntity;
  commit: (event: ConnectorEvent, options: ApplyOptions) => Promise<void>;
  request: ConnectInput;
  stdioReadyTimeoutMs: number;
}

/** What a failed connect carries besides its type (the API's status): the record as it now is. */
export interface ConnectFailureDetails {
  record: ConnectorRecord;
}

/**
 * Whether `connecting` may be written together with the outcome: a token probe is short and its
 * caller waits for the answer. A stdio workload takes seconds, and an async caller does not
 * wait: they see `connecting` at once.
 */
export function recordsConnectingWithOutcome(entity: ConnectorEntity, request: ConnectInput): boolean {
  return Boolean(request.accessToken) && !request.respondAsync && !entity.runsWorkload;
}

export async function runConnect(job: ConnectJob): Promise<void> {
  try {
    if (job.entity.runsWorkload) await connectStdio(job);
    else if (job.request.accessToken) await connectWithToken(job);
    else if (connectsWithServiceGrant(job.request)) await connectWithServiceGrant(job);
    else await connectWithOAuth(job);
  } catch (err) {
    if (isCancellation(err)) throw err; // a disconnect or delete took over; it records the outcome
    await job.commit('connect_failed', { actor: 'service', reason: failureMessage(err), permanent: true });
    throw err;
  }
}

async function connectWithToken(job: ConnectJob): Promise<void> {
  const { entity, request } = job;
  const token = request.accessToken!;
  const probed = await probeToken(entity, token);
  entity.data.secrets.accessToken = token;
  entity.data.oauth.session = null; // a given token replaces any grant
  await job.commit('connect_succeeded', { actor: request.actor, reason: 'token accepted by the MCP server', protocolVersion: probed.protocolVersion, authKind: 'bearer' });
}

/** The probe of a given token: in the connect's workflow task first (workflows/activity-proxies.ts, `inTaskFirst`). */
function probeToken(entity: ConnectorEntity, token: Ciphertext): Promise<ProbeResult> {
  const { connectTimeoutMs } = entity.data.init.settings;
  const input = { connectorId: entity.data.init.id, url: entity.upstreamUrl, token, headers: entity.upstreamHeaders, ...entity.upstreamTransport };
  if (!takes(entity.data.init, IN_TASK_TRY_ONCE)) return probe(connectTimeoutMs).probeServer(input);
  return inTaskFirst(() => inTaskTry.probeServer({ ...input, owner: entity.data.init.createdBy }), () => remote(connectTimeoutMs).probeServer(input));
}

async function connectWithOAuth(job: ConnectJob): Promise<void> {
  const { entity, request } = job;
  const begin = await beginAuthorization(entity, request.redirectUrl ?? null);
  if (begin.kind === 'open') {
    entity.data.secrets.accessToken = null;
    await job.commit('connect_succeeded', {
      actor: request.actor, reason: 'the MCP server answered without authorization', protocolVersion: begin.protocolVersion, authKind: 'none',
    });
    return;
  }
  entity.data.oauth.pending = begin.pending;
  entity.data.authRequest = { type: 'code', authorization_endpoint: begin.authorizationUrl, expires_at: begin.expiresAt };
  const moved = begin.authorizationServerChanged;
  const reason = moved
    ? `authorization URL issued; the MCP server moved from the authorization server ${moved.from} to ${moved.to}, where the service registers and the user authorizes anew`
    : 'authorization URL issued; waiting for the user';
  await job.commit('auth_issued', { actor: 'service', reason });
}

async function connectStdio(job: ConnectJob): Promise<void> {
  const { entity, request } = job;
  const init = entity.data.init;
  entity.data.workload = await workloads(job.stdioReadyTimeoutMs).startWorkload(workloadInput(entity, request.accessToken ?? null));
  entity.data.secrets.accessToken = request.accessToken ?? null;
  await job.commit('connect_succeeded', { actor: request.actor, reason: 'the stdio workload is ready', authKind: request.accessToken ? 'bearer' : 'none' });
}

/** What starting the connector's workload needs: its preset by reference (the worker has the config, env values included). */
export function workloadInput(entity: ConnectorEntity, tokenSealed: Ciphertext | null): StartWorkloadInput {
  const { id, preset } = entity.data.init;
  const envSealed = entity.data.binding?.env ?? [];
  return { connectorId: id, presetUrl: preset?.url ?? null, tokenSealed, ...(envSealed.length ? { envSealed } : {}) };
}

/** The failure a connect Update answers with: its type (the API's status follows) and the record. */
export function connectFailure(err: unknown, record: ConnectorRecord): ApplicationFailure {
  if (isCancellation(err)) {
    return ApplicationFailure.create({
      type: FAILURE.cancelled, nonRetryable: true, message: 'the connect was cancelled by a disconnect or delete',
      details: [{ record } satisfies ConnectFailureDetails],
    });
  }
  const type = failureType(err);
  return ApplicationFailure.create({
    type, nonRetryable: true, message: failureMessage(err), details: [{ record } satisfies ConnectFailureDetails],
  });
}

export function failureType(err: unknown): FailureType {
  const cause = (err as { cause?: unknown }).cause ?? err;
  const type = (cause as { type?: string }).type ?? (err as { type?: string }).type;
  return isFailureType(type) ? type : FAILURE.upstreamError;
}

export function failureMessage(err: unknown): string {
  const cause = (err as { cause?: { message?: string } }).cause;
  return cause?.message || (err as Error).message || 'the connect failed';
}
