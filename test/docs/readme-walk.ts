// The docs' curl walks, run as a person would paste them: a section's indented block taken from
// the file as it is, with only what a reader fills in replaced (the address, the MCP servers and
// their tokens, the API key), run by bash with curl and jq.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = new URL('../../', import.meta.url);

/** The indented lines of a markdown file's section (from `heading` to the next heading of its level). */
export function walkBlock(file = 'README.md', heading = '## First connector'): string {
  const text = readFileSync(fileURLToPath(new URL(file, ROOT)), 'utf8');
  const start = text.indexOf(heading);
  if (start < 0) throw new Error(`${file} has no section ${heading}`);
  const end = text.indexOf('\n## ', start + 3);
  const section = text.slice(start, end < 0 ? undefined : end);
  return section.split('\n').filter((line) => line.startsWith('    ')).map((line) => line.slice(4)).join('\n');
}

export interface WalkInput {
  /** host:port of the service (the docs say localhost:8080). */
  address: string;
  serverUrl: string;
  token: string;
  /** The API key; absent: the docs' placeholder word. */
  key?: string;
}

/** Runs `script` (a block of the docs) in bash, with each placeholder replaced by what a reader would type. */
export async function runBlock(script: string, replacements: Record<string, string>, key?: string): Promise<{ stdout: string; stderr: string }> {
  let filled = script;
  for (const [placeholder, value] of Object.entries(replacements)) filled = filled.replaceAll(placeholder, value);
  if (key) filled = filled.replace(/^KEY=none;/m, `KEY=${key};`);
  return promisify(execFile)('bash', ['-c', `set -eo pipefail\n${filled}`], { timeout: 60_000 });
}

export function runWalk(input: WalkInput): Promise<{ stdout: string; stderr: string }> {
  return runBlock(walkBlock(), { 'localhost:8080': input.address, 'https://mcp.example.com/mcp': input.serverUrl, '<its token>': input.token }, input.key);
}
