// Run by container-offline.test.ts in a network namespace of its own with nothing but loopback:
// the container runtime starts a stdio server from an image named without a registry, and the MCP
// client lists its tools through the gateway; then one whose short name is nowhere here. Prints
// one JSON line: the tools (or the error), and the error of the missing one.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ContainerEngine } from '../../../activities/workloads/container-engine';
import { ContainerRuntime } from '../../../activities/workloads/container-runtime';
import { GATEWAY_SECRET_HEADER } from '../../../contract/gateway-secret';
import { createLogger } from '../../../platform/logger';

const [image, connectorId, owner] = process.argv.slice(2) as [string, string, string];
const runtime = new ContainerRuntime({ engine: new ContainerEngine('podman'), owner, logger: createLogger('offline', 'silent'), serverStderr: 'ignore' });
try {
  const { target, gatewaySecret } = await runtime.start({ connectorId, stdio: { image }, token: null }, { readinessTimeoutMs: 60_000 });
  const client = new Client({ name: 'offline', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers: { [GATEWAY_SECRET_HEADER]: gatewaySecret } } }));
  const { tools } = await client.listTools();
  await client.close();
  const missing = await runtime.start({ connectorId: `${connectorId}-missing`, stdio: { image: `mcp/missing-${connectorId.slice(0, 8)}` }, token: null }, { readinessTimeoutMs: 60_000 })
    .then(() => 'started', (error: Error) => error.message);
  process.stdout.write(`${JSON.stringify({ tools: tools.length, missing })}\n`);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ error: (error as Error).message })}\n`);
} finally {
  await runtime.close();
}
