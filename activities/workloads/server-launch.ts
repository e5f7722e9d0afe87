// The process behind one workload's gateway, as the local runtime's launchers give it: the
// preset's command on this host, or an engine's client that runs the server in a container.
import type { EgressNetwork } from './egress-network';
import type { WorkloadSpec } from './runtime';

/** The process behind one workload's gateway: the server itself, or an engine that runs it in a container. */
export interface ServerLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}
/** `network`: the egress network the server must join, or null: none at all. */
export type ServerLauncher = (spec: WorkloadSpec, network: EgressNetwork | null) => ServerLaunch;
