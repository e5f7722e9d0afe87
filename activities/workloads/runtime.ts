// One interface over the places a managed stdio connector can run: local child processes (the
// embedded default) or a Kubernetes Deployment. The workflow only ever sees this contract.
import type { StdioConfig } from '../../contract/schemas';

export { WorkloadExitedError, WorkloadSpecError, WorkloadTimeoutError } from './errors';

export interface WorkloadSpec {
  connectorId: string;
  stdio: StdioConfig;
  /** Plaintext, opened by the caller; lives only in process memory (and in a Kubernetes Secret). */
  token: string | null;
  /** The connect's values for the preset's env_inputs, opened the same way (absent: none). */
  inputs?: Record<string, string>;
}

export interface StartOptions {
  readinessTimeoutMs: number;
  heartbeat?: () => void;
  signal?: AbortSignal;
}

export interface StartedRuntimeWorkload {
  target: string;
  /**
   * What the gateway requires of every MCP request (plaintext; the activity seals it). The same
   * for as long as the workload runs, so a start that finds it running answers the same secret.
   */
  gatewaySecret: string;
}

export type WatchResult = { kind: 'exited'; reason: string } | { kind: 'missing' };

export interface WorkloadRuntime {
  /**
   * Whether the stdio servers share this machine's network, and so reach its loopback (the
   * embedded Temporal and FerretDB): only unisolated local servers (a single-tenant machine).
   */
  readonly sharesHostNetwork: boolean;
  /**
   * Idempotent: if the workload already runs (and is ready), returns its target and gateway
   * secret; otherwise a new workload gets a new secret, only its gateway knows it. Waits for
   * readiness up to readinessTimeoutMs; past it removes everything and throws
   * WorkloadTimeoutError. A failure half-way rolls back. A spec the runtime cannot run throws
   * WorkloadSpecError; a server that ends before it is ready throws WorkloadExitedError.
   */
  start(spec: WorkloadSpec, options: StartOptions): Promise<StartedRuntimeWorkload>;
  /**
   * Resolves when the workload stops serving ('exited', with a reason), or at once with
   * 'missing' when no such workload is known here. Aborting the signal stops watching only: it
   * rejects with the signal's reason and never removes anything.
   */
  watch(connectorId: string, options: { heartbeat: () => void; signal: AbortSignal }): Promise<WatchResult>;
  /** Idempotent removal of everything belonging to the connector. */
  remove(connectorId: string): Promise<void>;
  /**
   * Removes workloads whose connector is not connected; returns the ids removed. Workloads still
   * starting, or started within a grace period, are left alone: `isConnected` may answer false
   * while a connect is under way or not yet on record.
   */
  reconcile(isConnected: (connectorId: string) => Promise<boolean>): Promise<string[]>;
  close(): Promise<void>;
}
