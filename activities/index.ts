// Every side effect the connector workflow asks for, built by one factory from injected
// dependencies. Workflows import only the type of this module.
import type { AuditEvent, ConnectorRecord, ProjectedVersion } from '../contract/connector-record';
import { Context, heartbeat } from '@temporalio/activity';
import type { ChangeFeed } from '../store/change-feed';
import type { ConnectorStore } from '../store/connector-store';
import type { ToolsetStore } from '../store/toolset-store';
import type { TaskStore } from '../store/task-store';
import type { CallAuditStore } from '../store/call-audit-store';
import type { SecretBox, Ciphertext } from '../platform/secret-box';
import { secretContext } from '../platform/secret-box';
import { openHeaders } from '../platform/upstream-headers';
import { openDpopKey } from '../platform/dpop-proof';
import { DpopNonces, dpopFetch } from '../platform/dpop-nonces';
import { DPOP_KEY_PURPOSE } from '../contract/dpop-key';
import type { SealedHeader } from '../contract/upstream-inputs';

import { probeMcpServer, type ProbeResult } from './mcp-probe';
import type { FetchLike } from './oauth/http';
import type { Logger } from '../platform/logger';
import type { Metrics } from '../platform/metrics';
import type { WorkloadActivityFunctions } from './workloads/activities';
import { createOAuthActivities } from './oauth-activities';
import type { OAuthActivityDeps } from './oauth-activity-deps';
import { createToolTaskActivities, type ConnectorCalls } from './tool-task-activities';
import { IN_TASK_LIMITS, InTaskAdmission, type InTaskCall } from './in-task-admission';

/** The managed-workload activities (activities/workloads), injected so that either runtime fits. */
export type WorkloadActivities = WorkloadActivityFunctions;

export interface ActivityDeps extends Omit<OAuthActivityDeps, 'http' | 'metrics'> {
  /** Where refreshes and calls offered to workflow tasks are counted. */
  metrics?: NonNullable<OAuthActivityDeps['metrics']> & Partial<Pick<Metrics, 'inTaskCalls'>>;
  store: ConnectorStore;
  /** Where a deleted connector is pulled from every toolset (absent: no toolsets here). */
  toolsets?: ToolsetStore;
  /** Where proxies in other processes hear that a connector's route changed (absent: they wait out their TTL). */
  changes?: Pick<ChangeFeed, 'publish'>;
  secrets: SecretBox;
  /** A fetch whose every connection passes the address guard. */
  fetch: FetchLike;
  /** The process's logger, for the OAuth steps. */
  logger?: Logger;
  connectTimeoutMs: number;
  /** How long the audit events of a deleted connector are kept (CONNECTOR__EVENTS_RETENTION_DAYS). */
  eventsRetentionDays: number;
  workloads: WorkloadActivities;
  /** Requests to connectors' MCP servers, for the tasks the service owns (absent: those refuse). */
  calls?: ConnectorCalls;
  /** Where connectors' owners list the tasks the service owns. */
  tasks?: TaskStore;
  /** Where each change of those tasks becomes a row of the per-call audit. */
  callAudit?: CallAuditStore;
  /** What may run in a workflow task, per owner (absent: this worker's own, with the default limits). */
  inTask?: InTaskAdmission;
}

const NO_CALLS: ConnectorCalls = {
  request: () => Promise.reject(new Error('this worker makes no calls to MCP servers')),
  notify: () => Promise.resolve(),
};

const DAY_MS = 86_400_000;

/** The nonces MCP servers gave the probes of this worker (RFC 9449 section 9). */
const probeNonces = new DpopNonces();

export function createActivities(deps: ActivityDeps) {
  const inTask = deps.inTask ?? new InTaskAdmission(IN_TASK_LIMITS, {
    onSentOut: (owner, why, forMs) => deps.logger?.warn({ owner, why, forMs }, `this owner's calls run as regular activities for ${forMs / 1000} s, not in workflow tasks`),
    onOutcome: (outcome) => deps.metrics?.inTaskCalls?.inc({ outcome }),
  });
  return admittedInTask(inTask, {
    /** The audit events of one or more transitions, and the record as they left it. */
    async recordTransition({ record, events, prior }: {
      record: ConnectorRecord; events: AuditEvent[];
      /** The version the workflow wrote before this one (null: none): spares the read before the write. Absent from workflows older than it. */
      prior?: ProjectedVersion | null;
    }): Promise<void> {
      // Both writes are idempotent and a failure of either retries both: no order is needed.
      await Promise.all([deps.store.appendEvents(events), deps.store.project(record, prior)]);
      // After the record: the workflow's route query already answers the transition (this
      // activity runs once the task that made it is in history), so a proxy that forgets the
      // route now loads the new one.
      await deps.changes?.publish('connector', record.id);
    },

    async removeRecord({ connectorId }: { connectorId: string }): Promise<void> {
      // Toolsets first: a retry after a crash between the two pulls nothing more and removes the record.
      await deps.toolsets?.removeConnector(connectorId);
      await deps.store.remove(connectorId, new Date(Date.now() + deps.eventsRetentionDays * DAY_MS));
      await deps.changes?.publish('connector', connectorId);
    },

    /**
     * A local activity on a token connect (no heartbeats: see workflows/activity-proxies.ts); a
     * regular one after an OAuth callback, where it heartbeats like the other remote calls: the
     * handshake may take several requests (server/discover, then initialize and its notification).
     */
    async probeServer(input: InTaskCall & {
      connectorId: string; url: string; token: Ciphertext | null; headers?: SealedHeader[];
      /** The token is DPoP-bound to this key (sealed): presented with proofs made with it. */
      dpopKey?: Ciphertext | null;
      transport?: 'sse';
    }): Promise<ProbeResult> {
      const token = input.token ? deps.secrets.open(input.token, secretContext(input.connectorId, 'access_token')) : null;
      const headers = openHeaders(deps.secrets, input.connectorId, input.headers);
      const dpop = token && input.dpopKey ? openDpopKey(deps.secrets.open(input.dpopKey, secretContext(input.connectorId, DPOP_KEY_PURPOSE))) : null;
      // A bound token goes in the DPoP wrapper's Authorization header, not as a Bearer one.
      const probe = dpop && token
        ? () => probeMcpServer(input.url, null, deps.connectTimeoutMs, dpopFetch(deps.fetch, dpop, token, probeNonces), headers, input.transport)
        : () => probeMcpServer(input.url, token, deps.connectTimeoutMs, deps.fetch, headers, input.transport);
      return Context.current().info.isLocal ? probe() : withHeartbeat(probe);
    },

    ...wrapWithHeartbeat(createOAuthActivities({ ...deps, http: { fetch: deps.fetch, logger: deps.logger } })),

    ...createToolTaskActivities({ secrets: deps.secrets, calls: deps.calls ?? NO_CALLS, tasks: deps.tasks, callAudit: deps.callAudit }),

    startWorkload: (input: Parameters<WorkloadActivities['startWorkload']>[0]) => deps.workloads.startWorkload(input),
    watchWorkload: (input: Parameters<WorkloadActivities['watchWorkload']>[0]) => deps.workloads.watchWorkload(input),
    removeWorkload: (input: Parameters<WorkloadActivities['removeWorkload']>[0]) => deps.workloads.removeWorkload(input),
  });
}

/**
 * Any of them run as a local activity runs within the budget of a call in a workflow task
 * (in-task-admission.ts), counted against the slots of the shard whose worker runs it: a local
 * activity runs on its workflow's worker, and the SDK gives it that worker's task queue.
 */
function admittedInTask<T extends Record<string, (input: never) => Promise<unknown>>>(admission: InTaskAdmission, activities: T): T {
  return Object.fromEntries(
    Object.entries(activities).map(([name, fn]) => [name, (input: never) => {
      const { isLocal, taskQueue } = Context.current().info;
      return isLocal ? admission.run((input as InTaskCall | undefined)?.owner, () => fn(input), taskQueue) : fn(input);
    }]),
  ) as T;
}

/**
 * Heartbeats while `work` runs, so that a worker that dies mid-activity is noticed within the
 * heartbeat timeout and the activity runs again on another worker.
 */
async function withHeartbeat<T>(work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => heartbeat(), 1_000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

function wrapWithHeartbeat<T extends Record<string, (input: never) => Promise<unknown>>>(activities: T): T {
  return Object.fromEntries(
    Object.entries(activities).map(([name, fn]) => [name, (input: never) => withHeartbeat(() => fn(input))]),
  ) as T;
}
