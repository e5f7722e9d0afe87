// A real embedded stack for one test file: Temporal dev server and FerretDB on free ports
// under a temporary DATA_DIR, the worker, API and proxy in this process. Logs go to a file in
// the data dir so that tests can scan them for secrets.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../../platform/logger';
import { freePort, retryOnPortConflict } from '../../service/free-port';
import { startEmbeddedStack, type EmbeddedStack } from '../../stack/embedded-stack';
import { SERVICE_TEST_ENV } from './service-env';

export interface TestStack extends EmbeddedStack {
  dataDir: string;
  logFile: string;
  api: ApiCall;
}

export type ApiCall = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<ApiAnswer>;

export interface ApiAnswer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export async function startTestStack(env: Record<string, string> = {}): Promise<TestStack> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'connector-registry-test-'));
  const logFile = path.join(dataDir, 'logs', 'service.log');
  // The port is free when asked for and bound only once the stack is up: another process may take
  // it in between (seen in CI, dozens of test processes at once). The stack stops what it started
  // when its listen fails, so it is started again on another port.
  return retryOnPortConflict(async () => {
    const port = await freePort();
    const fullEnv = {
      DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', BASE_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'info', ...SERVICE_TEST_ENV, ...env,
    };
    const logger = createLogger('test-stack', fullEnv.LOG_LEVEL, logFile);
    const stack = await startEmbeddedStack({ env: fullEnv, logger, headless: true, temporalPort: 0, mongoPort: 0 });
    return { ...stack, dataDir, logFile, api: apiClient(`http://127.0.0.1:${stack.port}`) };
  });
}

/** `timeoutMs`: each call fails after that long rather than waiting for ever (benchmarks under overload). */
export function apiClient(base: string, options: { timeoutMs?: number } = {}): ApiCall {
  return async (method, urlPath, body, headers = {}) => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (options.timeoutMs) init.signal = AbortSignal.timeout(options.timeoutMs);
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    const response = await fetch(base + urlPath, init);
    const text = await response.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  };
}

/** A connector of the MCP server at `url`, created by the caller of `key` and connected with `token`: its id. */
export async function connectedConnector(api: ApiCall, url: string, key: string, token: string): Promise<string> {
  const auth = { authorization: `Bearer ${key}` };
  const created = await api('POST', '/api/v1/connectors', { url, match_preset: false }, auth);
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
  const connected = await api('POST', `/api/v1/connectors/${created.body.id}/connect`, { access_token: token }, auth);
  if (connected.status !== 200) throw new Error(`connect: ${connected.status} ${connected.text}`);
  return created.body.id;
}

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Every file under `dir` whose bytes contain `needle`. */
export function filesContaining(dir: string, needle: string): string[] {
  const hits: string[] = [];
  const bytes = Buffer.from(needle);
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && fs.readFileSync(full).includes(bytes)) hits.push(full);
    }
  };
  walk(dir);
  return hits;
}
