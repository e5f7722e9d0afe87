// The workflow bundle's two builds: plain, and with the Temporal OpenTelemetry workflow
// interceptors (they run in the sandbox, so they must be in the bundle). The worker picks one by
// whether traces are on; `npm run build` makes both ahead of time, the worker from source bundles
// the one it needs once.
import { createRequire } from 'node:module';
import type { BundleOptions } from '@temporalio/worker';

export const workflowBundleName = (traced: boolean) => (traced ? 'workflow-bundle-traced.js' : 'workflow-bundle.js');

const SILENT = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} };

export function workflowBundleOptions(workflowsPath: string, traced: boolean): BundleOptions {
  return {
    workflowsPath,
    logger: SILENT,
    ...(traced ? { workflowInterceptorModules: [createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')] } : {}),
  };
}
