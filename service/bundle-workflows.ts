// The workflow code bundled by webpack (workflow-bundle.ts says which builds): by `npm run build`
// into dist/, and by a worker started from source through bundle-workflows-main.ts, in a child
// process, so that webpack's memory (about 120 MB that a process keeps once it has bundled)
// never joins the worker's.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundleOptions } from './workflow-bundle';

const WORKFLOWS = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
const PROGRAM = fileURLToPath(new URL('./bundle-workflows-main.ts', import.meta.url));

export async function bundleWorkflows(traced: boolean): Promise<string> {
  return (await bundleWorkflowCode(workflowBundleOptions(WORKFLOWS, traced))).code;
}

/** The bundle, made by bundle-workflows-main.ts as a child process (with tsx, as the worker runs). */
export async function bundleWorkflowsApart(traced: boolean): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'workflow-bundle-'));
  try {
    const out = join(dir, 'bundle.js');
    await new Promise<void>((resolve, reject) => {
      execFile(process.execPath, ['--import', 'tsx', PROGRAM, out, traced ? 'traced' : 'plain'], { maxBuffer: 16 * 1024 * 1024 }, (err, _stdout, stderr) =>
        err ? reject(new Error(`bundling the workflow code failed: ${stderr || err.message}`)) : resolve());
    });
    return await readFile(out, 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
