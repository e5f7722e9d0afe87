// A real Kubernetes control plane (etcd, kube-apiserver, -controller-manager, -scheduler) with one
// kwok fake node, created by kwokctl from the local binaries: there is no container runtime, and
// without the --*-binary flags kwokctl would try to download release archives. kwok marks pods
// Ready whatever their probes say; pods never really run.
// kwokctl runs the components as daemons with its own pid files, so they outlive us unless told:
// a watchdog deletes the cluster when this process dies, and creating a cluster whose folder is
// still there deletes that leftover first.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Logger } from '../../platform/logger';
import { resolveBinary, type BinaryName } from '../toolchain/binaries';
import { freePorts } from '../../service/free-port';
import { runOnParentDeath } from './parent-watchdog';
import { runCommand } from './run-command';

export interface KubeClusterOptions {
  /** KWOK_WORKDIR: the cluster's files (etcd data, pki, logs, kubeconfig) live under it. */
  workDir: string;
  /** Default "connector-registry". */
  name?: string;
  log: Logger;
  /** false: fail instead of building missing binaries (8 minutes on 2 cores). Default true. */
  install?: boolean;
  readyTimeoutMs?: number;
}

export interface KubeCluster {
  name: string;
  kubeconfigPath: string;
  delete(): Promise<void>;
}

const COMPONENT_FLAGS = {
  '--etcd-binary': 'etcd',
  '--kube-apiserver-binary': 'kube-apiserver',
  '--kube-controller-manager-binary': 'kube-controller-manager',
  '--kube-scheduler-binary': 'kube-scheduler',
  '--kwok-controller-binary': 'kwok',
} as const satisfies Record<string, BinaryName>;

// kwokctl's own port choice counts down from 32767 and races when two clusters are created at
// once; it also binds 0.0.0.0. So every port is chosen here and everything binds to loopback.
const PORT_OPTIONS = [
  'etcdPort', 'etcdPeerPort', 'kubeApiserverPort', 'kubeControllerManagerPort', 'kubeSchedulerPort', 'kwokControllerPort',
] as const;

const COMMAND_TIMEOUT_MS = 60_000;

export async function createKubeCluster(options: KubeClusterOptions): Promise<KubeCluster> {
  const workDir = resolve(options.workDir);
  const name = options.name ?? 'connector-registry';
  const { log } = options;
  const kwokctl = await resolveBinary('kwokctl', { log, install: options.install });
  const binaryFlags = await componentFlags(log, options.install);
  await mkdir(workDir, { recursive: true });
  const run = kwokctlRunner(kwokctl, workDir, name, log);
  if (existsSync(join(workDir, 'clusters', name))) {
    log.warn({ workDir, cluster: name }, 'deleting a leftover kwok cluster from an earlier run');
    await run(['delete', 'cluster']);
  }
  const config = await writeConfig(workDir, name);
  const readyTimeoutMs = options.readyTimeoutMs ?? 120_000;
  const started = Date.now();
  const watchdog = runOnParentDeath(kwokctl, kwokctlArgs(workDir, name, ['delete', 'cluster']), kwokEnv(workDir));
  try {
    const wait = ['--wait', `${Math.ceil(readyTimeoutMs / 1000)}s`];
    await run(['-c', config, 'create', 'cluster', '--runtime', 'binary', ...binaryFlags, ...wait], readyTimeoutMs + COMMAND_TIMEOUT_MS);
    await run(['scale', 'node', '--replicas', '1']);
  } catch (error) {
    await run(['delete', 'cluster']).catch(() => {});
    watchdog.dispose();
    throw error;
  }
  const kubeconfigPath = join(workDir, 'clusters', name, 'kubeconfig.yaml');
  log.info({ cluster: name, kubeconfigPath, startMs: Date.now() - started }, `kwok cluster ${name} is ready`);
  return {
    name,
    kubeconfigPath,
    async delete() {
      watchdog.dispose();
      await run(['delete', 'cluster']);
    },
  };
}

async function componentFlags(log: Logger, install: boolean | undefined): Promise<string[]> {
  const flags: string[] = [];
  for (const [flag, binary] of Object.entries(COMPONENT_FLAGS)) {
    flags.push(flag, await resolveBinary(binary, { log, install }));
  }
  return flags;
}

async function writeConfig(workDir: string, name: string): Promise<string> {
  const ports = await freePorts(PORT_OPTIONS.length);
  const lines = [
    'apiVersion: config.kwok.x-k8s.io/v1alpha1',
    'kind: KwokctlConfiguration',
    'options:',
    '  bindAddress: 127.0.0.1',
    ...PORT_OPTIONS.map((option, i) => `  ${option}: ${ports[i]}`),
  ];
  const path = join(workDir, `${name}.kwokctl.yaml`);
  await writeFile(path, `${lines.join('\n')}\n`);
  return path;
}

function kwokctlRunner(kwokctl: string, workDir: string, name: string, log: Logger) {
  return (command: string[], timeoutMs = COMMAND_TIMEOUT_MS) =>
    runCommand(kwokctl, kwokctlArgs(workDir, name, command), { env: kwokEnv(workDir), log, timeoutMs });
}

// --kubeconfig: creating and deleting a cluster otherwise edit the user's ~/.kube/config (and
// switch its current context).
function kwokctlArgs(workDir: string, name: string, command: string[]): string[] {
  const editsKubeconfig = command.includes('cluster');
  const kubeconfig = editsKubeconfig ? ['--kubeconfig', join(workDir, 'kubeconfig-contexts.yaml')] : [];
  return ['--name', name, ...command, ...kubeconfig];
}

function kwokEnv(workDir: string): NodeJS.ProcessEnv {
  return { ...process.env, KWOK_WORKDIR: workDir };
}
