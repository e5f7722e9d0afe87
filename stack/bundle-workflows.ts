// The workflow code bundled by webpack: by `npm run build` into dist/, and by a worker started
// from source through bundle-workflows-main.ts. Run in a child process,
// webpack's memory (about 120 MB that a process keeps once it has bundled) never joins the
// worker's.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';

const WORKFLOWS = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
const PROGRAM = fileURLToPath(new URL('./bundle-workflows-main.ts', import.meta.url));

export async function bundleWorkflows(): Promise<string> {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS, logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} } });
  return code;
}

/** The bundle, made by this file run as a child process (with tsx, as the worker runs). */
export async function bundleWorkflowsApart(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'workflow-bundle-'));
  try {
    const out = join(dir, 'bundle.js');
    await new Promise<void>((resolve, reject) => {
      execFile(process.execPath, ['--import', 'tsx', PROGRAM, out], { maxBuffer: 16 * 1024 * 1024 }, (err, _stdout, stderr) =>
        err ? reject(new Error(`bundling the workflow code failed: ${stderr || err.message}`)) : resolve());
    });
    return await readFile(out, 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

