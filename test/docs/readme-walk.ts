// The README's first-connector walk, run as a person would paste it: its indented block taken
// from the README as it is, with only what a reader fills in replaced (the address, the MCP
// server and its token, the API key), run by bash with curl and jq.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const README = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');

/** The indented lines of the section "First connector, first MCP call". */
export function walkBlock(): string {
  const section = README.slice(README.indexOf('## First connector'), README.indexOf('\n## ', README.indexOf('## First connector') + 3));
  return section.split('\n').filter((line) => line.startsWith('    ')).map((line) => line.slice(4)).join('\n');
}

export interface WalkInput {
  /** host:port of the service (the README says localhost:8080). */
  address: string;
  serverUrl: string;
  token: string;
  /** The API key; absent: the README's placeholder word. */
  key?: string;
}

export async function runWalk(input: WalkInput): Promise<{ stdout: string; stderr: string }> {
  let script = walkBlock()
    .replaceAll('localhost:8080', input.address)
    .replaceAll('https://mcp.example.com/mcp', input.serverUrl)
    .replaceAll('<its token>', input.token);
  if (input.key) script = script.replace(/^KEY=none;/m, `KEY=${input.key};`);
  return promisify(execFile)('bash', ['-c', `set -eo pipefail\n${script}`], { timeout: 60_000 });
}
