// The proxy role as several processes on one port (CONNECTOR__PROXY_PROCESSES), run from the compiled entry
// point against a real Temporal dev server (and FerretDB, where the audit goes): MCP requests through the one port are answered by
// both processes (which process holds each connection is read from the kernel with `ss`), each
// asking the registry on its own; a process killed with SIGKILL is replaced, and the new one
// serves too.
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { createLogger } from '../../platform/logger';
import { freePortBelowEphemeral } from '../../service/free-port';
import { startTemporalDevServer } from '../../stack/servers/temporal-dev-server';
import { startFerretDb } from '../../stack/servers/ferretdb-server';
import { eventually } from '../helpers/test-stack';
import { startStackProcess } from '../helpers/stack-process';

test('CONNECTOR__PROXY_PROCESSES=2: both processes serve MCP requests on one port, and a dead one is replaced', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'connector-registry-proxies-'));
  const log = createLogger('proxies-test', 'warn');
  const temporal = await startTemporalDevServer({ dataDir, headless: true, log });
  const mongo = await startFerretDb({ dataDir, log });
  const port = await freePortBelowEphemeral();
  const proxy = await startStackProcess({
    entry: 'dist/proxy.mjs',
    env: {
      TEMPORAL_ADDRESS: temporal.address, MONGODB_URI: mongo.uri, PORT: String(port), HOST: '127.0.0.1', CONNECTOR__PROXY_PROCESSES: '2',
      CONNECTOR__ENCRYPTION_KEY: crypto.randomBytes(32).toString('hex'),
    },
    logFile: path.join(dataDir, 'logs', 'proxy.log'),
  });
  const connections: http.Agent[] = [];
  t.teardown(async () => {
    for (const agent of connections) agent.destroy();
    await proxy.stop();
    await temporal.stop();
    await mongo.stop();
  });
  const primary = proxy.child.pid!;
  const workers = await eventually(async () => {
    const found = childrenOf(primary);
    return found.length === 2 ? found : undefined;
  }, 30_000, 'two proxy processes');
  const logFile = path.join(dataDir, 'logs', 'proxy.log');
  const listening = () => fs.readFileSync(logFile, 'utf8').split('\n').filter((line) => line.includes('proxy listening')).length;
  await eventually(async () => (listening() === 2 ? true : undefined), 30_000, 'both processes to listen');

  // Each request on a connection of its own, kept open, so the kernel can say who holds it.
  const servedBy = async (count: number) => {
    const pids = new Set<number>();
    for (let i = 0; i < count; i++) {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      connections.push(agent);
      const { status, localPort } = await mcpRequest(port, agent, crypto.randomUUID());
      t.is(status, 404, 'an id the registry does not know, as the registry answers it');
      const holder = await eventually(async () => serverPidOf(port, localPort) ?? undefined, 5_000, 'the connection in ss');
      pids.add(holder);
    }
    return pids;
  };
  t.deepEqual([...(await servedBy(6))].sort(), [...workers].sort(), 'both processes answered');

  process.kill(workers[0]!, 'SIGKILL');
  const replaced = await eventually(async () => {
    const now = childrenOf(primary);
    return now.length === 2 && !now.includes(workers[0]!) ? now : undefined;
  }, 30_000, 'a new proxy process');
  const newcomer = replaced.find((pid) => !workers.includes(pid))!;
  t.truthy(newcomer);
  await eventually(async () => (listening() === 3 ? true : undefined), 30_000, 'the new process to listen');
  t.deepEqual([...(await servedBy(4))].sort(), [...replaced].sort(), 'the new process serves beside the survivor');
  t.true(fs.readFileSync(logFile, 'utf8').includes('a proxy process exited; starting another'));
});

function mcpRequest(port: number, agent: http.Agent, connectorId: string): Promise<{ status: number; localPort: number }> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1', port, agent, method: 'POST', path: `/api/v1/connectors/${connectorId}/mcp`,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, localPort: req.socket!.localPort! }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The process whose socket is the server end of the connection from 127.0.0.1:clientPort. */
function serverPidOf(serverPort: number, clientPort: number): number | null {
  const out = execFileSync('ss', ['-tnpH', 'state', 'established', `( sport = :${serverPort} and dport = :${clientPort} )`], { encoding: 'utf8' });
  const pid = /pid=(\d+)/.exec(out)?.[1];
  return pid ? Number(pid) : null;
}

function childrenOf(pid: number): number[] {
  return fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map(Number).filter((child) => {
    try {
      const stat = fs.readFileSync(`/proc/${child}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[1] === String(pid);
    } catch {
      return false;
    }
  });
}
