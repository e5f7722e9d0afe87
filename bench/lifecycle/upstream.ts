// The MCP server the connectors connect to, in its own process (as a real one would be, and so
// that it does not share the service's event loop). Prints "READY <url>" once it listens.
import { startTokenMcpServer } from '../../test/helpers/for-bench';

const server = await startTokenMcpServer({ token: process.env.BENCH_TOKEN ?? 'bench-token' });
process.stdout.write(`READY ${server.url}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
