// Runs the MCP conformance suite's CLI (@modelcontextprotocol/conformance, pinned in package.json)
// and reads each scenario's verdict from the checks.json files it writes. The suite needs
// Node >= 22, so it runs on the Node 24 binary that `npm test` puts in the toolchain cache,
// whatever Node runs the tests.
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../platform/logger';
import { locateNode24 } from '../../stack/toolchain/node24';

export type SpecVersion = '2025-11-25' | '2026-07-28';

export interface SuiteResult {
  /** Scenario name -> the ids of its failed checks (empty when it passed). */
  scenarios: Map<string, string[]>;
  passed: Set<string>;
}

// The package's exports do not name its CLI; it sits at a fixed place in the package.
const CLI = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// A scenario's directory ends in `-<ISO timestamp with - for : and .>`; client scenarios such as
// auth/basic-cimd sit one level down, server ones carry a `server-` prefix.
const TIMESTAMP = /-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/;

interface Check { id: string; status: string }

const AUTH_DRIVER = fileURLToPath(new URL('./auth-driver.ts', import.meta.url));

/**
 * The suite's client scenarios (`args` after `client --command …`) with test/conformance/auth-driver.ts
 * as the client under test, connecting connectors of the stack listening on `stackPort`. Each
 * driver loads tsx and connects through Temporal: far longer than the suite's default 30 s on a
 * busy 2-core machine, hence its own timeout. `env`: more for the driver.
 */
export function runAuthDriver(args: string[], stackPort: number, env: Record<string, string> = {}): Promise<SuiteResult> {
  const command = `${process.execPath} --import tsx ${AUTH_DRIVER}`;
  return runSuite(['client', '--command', command, ...args, '--timeout', '150000'], { ...env, CONFORMANCE_STACK_PORT: String(stackPort) });
}

/** `args`: the CLI's arguments after the script; the output directory is added. */
export async function runSuite(args: string[], env: Record<string, string> = {}): Promise<SuiteResult> {
  const node = await locateNode24({ log: createLogger('conformance') });
  const out = await mkdtemp(join(tmpdir(), 'conformance-'));
  try {
    await run(node.path, [CLI, ...args, '--output-dir', out], env);
    return await readResults(out);
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

function run(node: string, args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    // The CLI exits 1 when any scenario fails: the verdicts are read from its files, not its code.
    // It runs in the project's root so that a client command's `--import tsx` resolves.
    execFile(node, args, { cwd: ROOT, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') reject(err);
      // A suite ends with "Total: N passed", a single scenario with "Passed: N/M" (a single client
      // scenario writes it to stderr).
      else if (!/Total: \d+ passed|Passed: \d+\/\d+/.test(stdout + stderr)) reject(new Error(`the conformance suite gave no summary:\n${stdout}\n${stderr}`));
      else resolve();
    });
  });
}

async function readResults(dir: string): Promise<SuiteResult> {
  const scenarios = new Map<string, string[]>();
  for (const path of await readdir(dir, { recursive: true })) {
    if (!TIMESTAMP.test(path)) continue;
    const name = path.replace(TIMESTAMP, '').replace(/^server-/, '');
    scenarios.set(name, await failedChecks(join(dir, path, 'checks.json')));
  }
  const passed = new Set([...scenarios].filter(([, failed]) => failed.length === 0).map(([name]) => name));
  return { scenarios, passed };
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
