// What the benchmarks (bench/) take from the tests: their one door into test/, so that a helper
// changed for a test shows here which benchmark it also moves (test/architecture/import-graph.test.ts
// refuses any other bench import of test/). Everything re-exported is loaded by every bench
// process that imports one name of it; the benchmarks measure CPU between samples, not start-up.
export { startStackProcess, type StackProcess } from './stack-process';
export { apiClient, startTestStack, type ApiCall, type TestStack } from './test-stack';
export { testServersImage } from './container-images';
export { startToolsMcpServer } from '../fixtures/tools-mcp-server';
export { samples } from './prometheus-text';
export { deliverCallback, openConsentPage } from './oauth-service';
export { createConsentAgent, startOidcServer, startProtectedMcpServer, type OidcServer, type ProtectedMcpServer } from '../fixtures/oauth';
export { startJwtIssuer } from '../fixtures/jwt-issuer';
export { startTokenMcpServer } from '../fixtures/token-mcp-server';
export { startTasksMcpServer } from '../fixtures/tasks-mcp-server';
export { mcpRpc } from './tasks-rpc';
