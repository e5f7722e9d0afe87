// The workload runtime as Temporal activities. Inputs go to workflow history, so the token
// arrives sealed and is opened here, in the worker's memory; it reaches the server's environment
// (or a Kubernetes Secret) and nothing else.
import { Context } from '@temporalio/activity';
import type { StdioConfig } from '../../core/schemas';
import type { Ciphertext } from '../../core/secret-box';
import { toActivityFailure } from './failures';
import type { WatchResult, WorkloadRuntime } from './runtime';

export type OpenToken = (connectorId: string, sealed: Ciphertext) => string;

export interface StartWorkloadInput {
  connectorId: string;
  stdio: StdioConfig;
  tokenSealed: Ciphertext | null;
}

// Well under any sensible heartbeat timeout; the SDK throttles what it actually sends.
const HEARTBEAT_INTERVAL_MS = 1_000;

export function createWorkloadActivities(runtime: WorkloadRuntime, readinessTimeoutMs: number, openToken: OpenToken) {
  return {
    /** Heartbeats while it waits for readiness; a cancellation stops the wait and rolls back. */
    async startWorkload(input: StartWorkloadInput): Promise<{ target: string }> {
      const context = Context.current();
      const heartbeat = () => context.heartbeat();
      const timer = setInterval(heartbeat, HEARTBEAT_INTERVAL_MS);
      try {
        const token = input.tokenSealed === null ? null : openToken(input.connectorId, input.tokenSealed);
        const spec = { connectorId: input.connectorId, stdio: input.stdio, token };
        return await runtime.start(spec, { readinessTimeoutMs, heartbeat, signal: context.cancellationSignal });
      } catch (error) {
        throw toActivityFailure(error);
      } finally {
        clearInterval(timer);
      }
    },

    /** Runs as long as the workload serves; a cancellation stops watching and leaves it running. */
    async watchWorkload(input: { connectorId: string }): Promise<WatchResult> {
      const context = Context.current();
      return runtime.watch(input.connectorId, { heartbeat: () => context.heartbeat(), signal: context.cancellationSignal });
    },

    async removeWorkload(input: { connectorId: string }): Promise<void> {
      await runtime.remove(input.connectorId);
    },
  };
}

export type WorkloadActivityFunctions = ReturnType<typeof createWorkloadActivities>;
