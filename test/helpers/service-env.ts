// What every service a test starts runs with, in process (test-stack.ts) or as a process tree
// (stack-process.ts); a test's own variables come after and win.
export const SERVICE_TEST_ENV: Record<string, string> = {
  CONNECTOR__STDIO_RUNTIME: 'local',
  // A route is loaded by a Temporal query, which production answers 503 past 2 s; on a busy test
  // machine a query can take longer, and the MCP path would answer 503 for the machine's load,
  // not for what a test does. The deadline itself is tested on the route cache.
  CONNECTOR__ROUTE_LOAD_TIMEOUT_MS: '30000',
  // The tests' authorization servers issue tokens of a few seconds so that a test sees renewals;
  // the floor between renewals (30 s by default) would hold those back. The floor is tested in the
  // workflow (test/workflows/connector-workflow.test.ts) and in refresh-delay.test.ts.
  CONNECTOR__MIN_REFRESH_INTERVAL_SECONDS: '0',
};
