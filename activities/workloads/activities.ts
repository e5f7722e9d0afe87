// The workload runtime as Temporal activities. Inputs go to workflow history, so they carry no
// secret: the token arrives sealed and the preset (its env values) by URL; both are opened here,
// in the worker's memory, and reach the server's environment (or a Kubernetes Secret) and nothing
// else. The gateway secret the runtime generates goes back sealed.
import { Context } from '@temporalio/activity';
import { GATEWAY_SECRET_FIELD } from '../../contract/gateway-secret';
import type { Metrics } from '../../platform/metrics';
import type { Preset, StdioConfig } from '../../contract/schemas';
import { secretContext, type Ciphertext, type SecretBox } from '../../platform/secret-box';
import { configuredPreset } from '../configured-preset';
import { envPurpose, type SealedHeader } from '../../contract/upstream-inputs';
import { WorkloadSpecError } from './errors';
import { toApplicationFailure } from '../typed-failure';
import type { WatchResult, WorkloadRuntime } from './runtime';

export interface StartWorkloadInput {
  connectorId: string;
  /** The connector's preset, by its normalised URL: its stdio config is looked up here (null: none, refused). */
  presetUrl: string | null;
  tokenSealed: Ciphertext | null;
  /** The connect's values for the preset's env_inputs, each sealed for envPurpose(name). */
  envSealed?: SealedHeader[];
}

export interface StartedWorkload {
  target: string;
  /** Sealed under secretContext(connectorId, 'gateway_secret'): the proxy sends it on every request. */
  gatewaySecret: Ciphertext;
}

export interface WorkloadActivityDeps {
  runtime: WorkloadRuntime;
  readinessTimeoutMs: number;
  secrets: Pick<SecretBox, 'seal' | 'open'>;
  /** The presets configured on this worker (CONNECTOR__PRESETS). */
  presets: readonly Preset[];
  /** Why a preset may not run yet (a registry stdio preset whose version no admin approved), or null. */
  approvalRefusal?: (presetUrl: string) => Promise<string | null>;
  /** Where starts and their readiness time are counted. */
  metrics?: Pick<Metrics, 'workloadStarts' | 'workloadReadiness'>;
}

// Well under any sensible heartbeat timeout; the SDK throttles what it actually sends.
const HEARTBEAT_INTERVAL_MS = 1_000;

export function createWorkloadActivities(deps: WorkloadActivityDeps) {
  const { runtime, readinessTimeoutMs, secrets } = deps;
  return {
    /** Heartbeats while it waits for readiness; a cancellation stops the wait and rolls back. */
    async startWorkload(input: StartWorkloadInput): Promise<StartedWorkload> {
      const context = Context.current();
      const heartbeat = () => context.heartbeat();
      const timer = setInterval(heartbeat, HEARTBEAT_INTERVAL_MS);
      const started = performance.now();
      const outcome = (name: string) => {
        deps.metrics?.workloadStarts.inc({ outcome: name });
        deps.metrics?.workloadReadiness.observe({ outcome: name }, (performance.now() - started) / 1000);
      };
      try {
        const refused = input.presetUrl !== null ? await deps.approvalRefusal?.(input.presetUrl) : null;
        if (refused) throw new WorkloadSpecError(refused);
        const stdio = stdioOf(input, deps.presets);
        const token = input.tokenSealed === null ? null : secrets.open(input.tokenSealed, secretContext(input.connectorId, 'access_token'));
        const spec = { connectorId: input.connectorId, stdio, token, inputs: openEnvInputs(input, stdio, secrets) };
        const ready = await runtime.start(spec, { readinessTimeoutMs, heartbeat, signal: context.cancellationSignal });
        const gatewaySecret = secrets.seal(ready.gatewaySecret, secretContext(input.connectorId, GATEWAY_SECRET_FIELD));
        outcome('ready');
        return { target: ready.target, gatewaySecret };
      } catch (error) {
        outcome(context.cancellationSignal.aborted ? 'cancelled' : 'failed');
        throw toApplicationFailure(error);
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

/**
 * The connect's environment values, opened; only names the preset declares now are kept: a
 * declaration the operator has since dropped lets no stale value through.
 */
function openEnvInputs(input: StartWorkloadInput, stdio: StdioConfig, secrets: Pick<SecretBox, 'open'>): Record<string, string> {
  const declared = new Set((stdio.env_inputs ?? []).map((e) => e.name));
  const opened: Record<string, string> = {};
  for (const sealed of input.envSealed ?? []) {
    if (declared.has(sealed.name)) opened[sealed.name] = secrets.open(sealed.value, secretContext(input.connectorId, envPurpose(sealed.name)));
  }
  return opened;
}

function stdioOf(input: StartWorkloadInput, presets: readonly Preset[]): StdioConfig {
  if (input.presetUrl === null) throw new WorkloadSpecError('the connector names no preset to run');
  const preset = configuredPreset(presets, input.presetUrl);
  if (preset.stdio) return preset.stdio;
  throw new WorkloadSpecError(`the preset ${input.presetUrl} in CONNECTOR__PRESETS no longer says how to run a stdio server`);
}

export type WorkloadActivityFunctions = ReturnType<typeof createWorkloadActivities>;
