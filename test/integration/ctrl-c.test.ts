// `npm start`'s Ctrl-C: a terminal sends SIGINT to the whole foreground process group. The
// embedded stack's Temporal dev server and FerretDB run in groups of their own and do not get it:
// the registry stops them after its worker, which still needs Temporal to hand back what it holds
// (when they got it too, the worker's shutdown retried against a Temporal that had gone for about
// 5 s). Whatever was in flight then, the registry stops cleanly: exit code 0, no error from a
// Temporal client whose channel was shut down under it (one in five stops crashed so), and no call
// to a Temporal that was not there. Run as npm start runs it (dist/embedded.mjs), with MCP traffic
// and a connect under way at each SIGINT.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { freePortBelowEphemeral } from '../../service/free-port';
import { startStackProcess } from '../helpers/stack-process';
import { startTokenMcpServer } from '../fixtures/token-mcp-server';

const ROUNDS = 5;
const TOKEN = 'ctrl-c-token-3b7f';

test(`SIGINT to the embedded stack's process group, ${ROUNDS} times with traffic under way: exit code 0 and no shut-down channel`, async (t) => {
  const upstream = await startTokenMcpServer({ token: TOKEN });
  t.teardown(() => upstream.close());
  for (let round = 1; round <= ROUNDS; round++) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'connector-registry-ctrl-c-'));
    const logFile = path.join(dataDir, 'stack.log');
    const port = await freePortBelowEphemeral();
    const stack = await startStackProcess({
      entry: 'dist/embedded.mjs', logFile,
      env: { DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', BASE_URL: `http://127.0.0.1:${port}`, LOG_FORMAT: 'json' },
    });
    const { body: connector } = await stack.api('POST', '/api/v1/connectors', { url: upstream.url });
    await stack.api('POST', `/api/v1/connectors/${connector.id}/connect`, { access_token: TOKEN });
    const { body: second } = await stack.api('POST', '/api/v1/connectors', { url: upstream.url });
    // Traffic under way when the signal comes: MCP requests, and a connect whose probe the upstream holds.
    let sending = true;
    const traffic = (async () => {
      while (sending) {
        await fetch(`${stack.baseUrl}/api/v1/connectors/${connector.id}/mcp`, {
          method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${TOKEN}` },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        }).then((r) => r.arrayBuffer()).catch(() => undefined);
      }
    })();
    upstream.setHang(true);
    void stack.api('POST', `/api/v1/connectors/${second.id}/connect`, { access_token: TOKEN }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 200 + 150 * round));
    process.kill(-stack.child.pid!, 'SIGINT');
    const code = await new Promise<number | null>((resolve) => {
      if (stack.child.exitCode !== null) resolve(stack.child.exitCode);
      else stack.child.once('exit', (c) => resolve(c));
    });
    sending = false;
    upstream.setHang(false);
    await traffic;
    const log = fs.readFileSync(logFile, 'utf8');
    t.is(code, 0, `round ${round}: exit code (log: ${logFile})`);
    t.false(/Channel has been shut down/i.test(log), `round ${round}: a Temporal channel shut down under a call (log: ${logFile})`);
    t.false(/"level":(50|60)/.test(log), `round ${round}: no error or fatal line (log: ${logFile})`);
    t.false(/tcp connect error/.test(log), `round ${round}: the worker called Temporal after it had stopped (log: ${logFile})`);
    if (code === 0 && !process.env.KEEP_LOGS) fs.rmSync(dataDir, { recursive: true, force: true });
    else t.log(logFile);
  }
});
