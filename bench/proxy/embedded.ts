// BENCH_EMBEDDED=1: the embedded stack as `npm start` runs it (dist/embedded.mjs, npm start's node
// flags and MALLOC_ARENA_MAX, its default log level, the per-call audit on as it is by default),
// beside the proxy role, with the same callers. One connector is created and connected through
// its REST API to the bench's upstream; its MCP path is then loaded like the role's. Its CPU is
// the Node process's alone (the API, the worker and the proxy); the Temporal dev server's and
// FerretDB's are read apart.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../service/free-port';
import { startStackProcess } from '../../test/helpers/for-bench';
import { startEnv, startNodeFlags } from '../start-flags';
import type { BenchCallers } from './bench-callers';
import { nodeArgsFrom } from './child';
import { withChildren } from './cpu-time';

export interface EmbeddedTarget {
  port: number;
  pid: number;
  /** The dev servers it started (Temporal, FerretDB). */
  serverPids: number[];
  /** The MCP path of the connector it connected. */
  mcpPath: string;
  stop(): Promise<void>;
}

/** `extraNodeArgs`: after npm start's flags and BENCH_EMBEDDED_NODE_ARGS (a same-run variant's, say). */
export async function startEmbedded(callers: BenchCallers, upstreamUrl: string, token: string, extraEnv: Record<string, string>, extraNodeArgs: string[] = []): Promise<EmbeddedTarget> {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-embedded-'));
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = {
    ...callers.env, ...startEnv(), ...extraEnv,
    NODE_OPTIONS: process.env.BENCH_EMBEDDED_NODE_OPTIONS ?? '',
    PORT: String(port), HOST: '127.0.0.1', BASE_URL: baseUrl, DATA_DIR: dataDir,
    // The bench's access token names the role proxy's BASE_URL as its audience.
    CONNECTOR__AUTH_AUDIENCE: callers.env.BASE_URL!,
  };
  const service = await startStackProcess({
    env, logFile: path.join(dataDir, 'service.log'), entry: process.env.BENCH_EMBEDDED_ENTRY ?? 'dist/embedded.mjs',
    // e.g. "--cpu-prof --cpu-prof-dir=/tmp/p", which NODE_OPTIONS refuses.
    nodeArgs: [...startNodeFlags(), ...nodeArgsFrom('BENCH_EMBEDDED_NODE_ARGS'), ...extraNodeArgs],
  });
  const stop = async () => {
    await service.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const auth = { authorization: callers.authorizations[0]! };
    const created = await service.api('POST', '/api/v1/connectors', { url: upstreamUrl, metadata: { name: 'bench' } }, auth);
    if (created.status !== 201) throw new Error(`create answered ${created.status}: ${created.text}`);
    const id = (created.body as { id: string }).id;
    const connected = await service.api('POST', `/api/v1/connectors/${id}/connect`, { access_token: token }, auth);
    if ((connected.body as { state?: string } | undefined)?.state !== 'connected') throw new Error(`connect answered ${connected.status}: ${connected.text}`);
    const pid = service.child.pid!;
    return { port, pid, serverPids: withChildren(pid).filter((p) => p !== pid), mcpPath: `/api/v1/connectors/${id}/mcp`, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
