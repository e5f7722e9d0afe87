// The production shape for a test: Temporal and FerretDB as external servers under a temporary
// DATA_DIR, and the roles started from dist/ as processes of their own, each logging to a file
// of its own there. Everything stops when the test ends.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import { createLogger } from '../../platform/logger';
import { startFerretDb } from '../../stack/servers/ferretdb-server';
import { freePortBelowEphemeral } from '../../service/free-port';
import { startTemporalDevServer } from '../../stack/servers/temporal-dev-server';
import { startOnFreePort, startStackProcess, type StackProcess } from './stack-process';

export interface SplitProcesses {
  dataDir: string;
  /** The port the proxy is to take: BASE_URL (and so every mcp_url) names it. */
  proxyPort: number;
  /** The variables every role shares (Temporal's and the database's addresses, the key, BASE_URL): for roles started elsewhere, such as in containers. */
  env: Record<string, string>;
  /** `entry` (dist/<role>.mjs) as a process, ready; `extra` adds to or overrides the shared variables. */
  start(entry: string, name: string, extra?: Record<string, string>): Promise<StackProcess>;
}

export async function startSplitProcesses(t: ExecutionContext, env: Record<string, string> = {}): Promise<SplitProcesses> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'connector-registry-split-'));
  const log = createLogger('split-test', 'warn', path.join(dataDir, 'logs', 'servers.log'));
  const temporal = await startTemporalDevServer({ dataDir, headless: true, log });
  const mongo = await startFerretDb({ dataDir, log });
  const processes: StackProcess[] = [];
  t.teardown(async () => {
    for (const p of processes) await p.stop().catch(() => undefined);
    await mongo.stop();
    await temporal.stop();
  });
  // Bound only once the proxy (or a balancer in front of it) starts, after the servers and other
  // roles: below the ephemeral range, where no port-0 bind or outgoing connection takes it meanwhile.
  const proxyPort = await freePortBelowEphemeral();
  const common = {
    TEMPORAL_ADDRESS: temporal.address, MONGODB_URI: mongo.uri, HOST: '127.0.0.1', LOG_LEVEL: 'info',
    CONNECTOR__ENCRYPTION_KEY: crypto.randomBytes(32).toString('hex'), BASE_URL: `http://127.0.0.1:${proxyPort}`, ...env,
  };
  return {
    dataDir,
    proxyPort,
    env: common,
    async start(entry, name, extra = {}) {
      // Every role, the worker included, is ready when its /readyz answers 200 (the chart's probes).
      // A port the caller named is kept; otherwise one is picked (and picked again if taken).
      const options = { entry, env: { ...common, ...extra }, logFile: path.join(dataDir, 'logs', `${name}.log`) };
      const p = extra.PORT ? await startStackProcess(options) : await startOnFreePort(options);
      processes.push(p);
      return p;
    },
  };
}
