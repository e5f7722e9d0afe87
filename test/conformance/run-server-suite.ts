// Runs the MCP conformance suite's server scenarios (@modelcontextprotocol/conformance, pinned in
// package.json) against one URL at one protocol revision, and reads each scenario's verdict from
// the checks.json files it writes. The suite needs Node >= 22, so it runs on the Node 24 binary
// that `npm test` puts in the toolchain cache, whatever Node runs the tests.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../core/logger';
import { locateNode24 } from '../../stack/toolchain/node24';

export type SpecVersion = '2025-11-25' | '2026-07-28';

export interface SuiteResult {
  /** Scenario name -> the ids of its failed checks (empty when it passed). */
  scenarios: Map<string, string[]>;
  passed: Set<string>;
}

// The package's exports do not name its CLI; it sits at a fixed place in the package.
const CLI = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url));
// Each scenario directory is `server-<scenario>-<ISO timestamp with - for : and .>`.
const RESULT_DIR = /^server-(.+)-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/;

interface Check { id: string; status: string }

export async function runServerSuite(url: string, specVersion: SpecVersion): Promise<SuiteResult> {
  const node = await locateNode24({ log: createLogger('conformance') });
  const out = await mkdtemp(join(tmpdir(), 'conformance-'));
  try {
    // `--suite all` takes the pending and extension scenarios too: what the proxy must relay is
    // everything the reference server can do, not only what a revision requires.
    await run(node.path, [CLI, 'server', '--url', url, '--spec-version', specVersion, '--suite', 'all', '--output-dir', out]);
    return await readResults(out);
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

function run(node: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    // The CLI exits 1 when any scenario fails: the verdicts are read from its files, not its code.
    execFile(node, args, { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') reject(err);
      else if (!stdout.includes('=== SUMMARY ===')) reject(new Error(`the conformance suite gave no summary:\n${stdout}\n${stderr}`));
      else resolve();
    });
  });
}

async function failedChecks(file: string): Promise<string[]> {
  let checks: Check[];
  try {
    checks = JSON.parse(await readFile(file, 'utf8')) as Check[];
  } catch {
    return ['(the scenario wrote no readable checks.json)'];
  }
  return checks.filter((c) => c.status === 'FAILURE').map((c) => c.id);
}

async function readResults(dir: string): Promise<SuiteResult> {
  const scenarios = new Map<string, string[]>();
  for (const entry of await readdir(dir)) {
    const name = RESULT_DIR.exec(entry)?.[1];
    if (!name) continue;
    scenarios.set(name, await failedChecks(join(dir, entry, 'checks.json')));
  }
  const passed = new Set([...scenarios].filter(([, failed]) => failed.length === 0).map(([name]) => name));
  return { scenarios, passed };
}
