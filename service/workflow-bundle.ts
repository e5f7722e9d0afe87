// The workflow bundle's two builds: plain, and with the Temporal OpenTelemetry workflow
// interceptors (they run in the sandbox, so they must be in the bundle). The worker picks one by
// whether traces are on; `npm run build` makes both ahead of time, the worker from source bundles
// the one it needs once.
import { createRequire } from 'node:module';
import path from 'node:path';
import type { BundleOptions } from '@temporalio/worker';

export const workflowBundleName = (traced: boolean) => (traced ? 'workflow-bundle-traced.js' : 'workflow-bundle.js');

const SILENT = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} };

/** `workflowsPath` is the workflows' index.ts; the sandbox's stack limit is its neighbour. */
export function workflowBundleOptions(workflowsPath: string, traced: boolean): BundleOptions {
  return {
    workflowsPath,
    // Both run once in each workflow thread's shared sandbox, before the SDK freezes its globals:
    // the stack limit (workflows/sandbox-stack-limit.ts), and the workflow code itself, which
    // otherwise the SDK would evaluate again, every module of it, for each workflow it creates
    // (each replay, each new run) and keep a copy of in each cached one. Sharing it needs modules
    // that keep no state of a workflow's at their top level (test/architecture/shared-workflow-modules.test.ts).
    preloadModules: [path.join(path.dirname(workflowsPath), 'sandbox-stack-limit.ts'), workflowsPath],
    logger: SILENT,
    ...(traced ? { workflowInterceptorModules: [createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')] } : {}),
  };
}
