// The entry point's env configuration: defaults, both command forms, and failures that name the
// variable at fault.
import test from 'ava';
import { loadGatewayConfig } from '../../gateway/config';

test('defaults: port 8080 on 0.0.0.0, a process source from GATEWAY_COMMAND', (t) => {
  const config = loadGatewayConfig({ GATEWAY_COMMAND: '["npx","-y","some-mcp-server","--flag"]' });
  t.like(config, { host: '0.0.0.0', port: 8080, source: 'process', command: 'npx', args: ['-y', 'some-mcp-server', '--flag'] });
  t.true(config.idleTimeoutMs > 0);
  t.like(config, { maxSessions: 256, firstRequestTimeoutMs: 60_000 });
});

test('the session cap and the first-request delay come from GATEWAY_MAX_SESSIONS and GATEWAY_FIRST_REQUEST_TIMEOUT_MS', (t) => {
  const config = loadGatewayConfig({ GATEWAY_COMMAND: '["x"]', GATEWAY_MAX_SESSIONS: '8', GATEWAY_FIRST_REQUEST_TIMEOUT_MS: '1500' });
  t.like(config, { maxSessions: 8, firstRequestTimeoutMs: 1500 });
  t.throws(() => loadGatewayConfig({ GATEWAY_COMMAND: '["x"]', GATEWAY_MAX_SESSIONS: '0' }), { message: /GATEWAY_MAX_SESSIONS/ });
  t.throws(() => loadGatewayConfig({ GATEWAY_COMMAND: '["x"]', GATEWAY_FIRST_REQUEST_TIMEOUT_MS: 'soon' }), { message: /GATEWAY_FIRST_REQUEST_TIMEOUT_MS/ });
});

test('the command may follow -- instead', (t) => {
  const config = loadGatewayConfig({ GATEWAY_PORT: '9090', GATEWAY_IDLE_TIMEOUT_MS: '5000' }, ['--', 'node', 'server.js']);
  t.like(config, { port: 9090, idleTimeoutMs: 5000, source: 'process', command: 'node', args: ['server.js'] });
});

const SECRET = 'a'.repeat(43);

test('an attach source takes its target from the downward API variables', (t) => {
  const config = loadGatewayConfig({
    GATEWAY_SOURCE: 'attach', POD_NAME: 'connector-1-abc', POD_NAMESPACE: 'tools', GATEWAY_TARGET_CONTAINER: 'mcp-server', GATEWAY_SECRET: SECRET,
  });
  t.like(config, { source: 'attach', pod: 'connector-1-abc', namespace: 'tools', container: 'mcp-server', secret: SECRET });
});

test('a sidecar (attach source) does not start without its secret, nor with a short one', (t) => {
  const target = { GATEWAY_SOURCE: 'attach', POD_NAME: 'p', POD_NAMESPACE: 'tools', GATEWAY_TARGET_CONTAINER: 'mcp-server' };
  t.throws(() => loadGatewayConfig(target), { message: /GATEWAY_SOURCE=attach needs GATEWAY_SECRET/ });
  t.throws(() => loadGatewayConfig({ ...target, GATEWAY_SECRET: 'short' }), { message: /GATEWAY_SECRET: must be at least 32 characters/ });
});

test('bad settings fail naming the variable', (t) => {
  t.throws(() => loadGatewayConfig({ GATEWAY_PORT: 'eighty', GATEWAY_COMMAND: '["x"]' }), { message: /GATEWAY_PORT/ });
  t.throws(() => loadGatewayConfig({ GATEWAY_PORT: '70000', GATEWAY_COMMAND: '["x"]' }), { message: /GATEWAY_PORT/ });
  t.throws(() => loadGatewayConfig({ GATEWAY_SOURCE: 'docker', GATEWAY_COMMAND: '["x"]' }), { message: /GATEWAY_SOURCE/ });
  t.throws(() => loadGatewayConfig({ GATEWAY_IDLE_TIMEOUT_MS: '-1', GATEWAY_COMMAND: '["x"]' }), { message: /GATEWAY_IDLE_TIMEOUT_MS/ });
  t.throws(() => loadGatewayConfig({}), { message: /GATEWAY_COMMAND/ });
  t.throws(() => loadGatewayConfig({ GATEWAY_COMMAND: 'node server.js' }), { message: /GATEWAY_COMMAND: must be a JSON array/ });
  t.throws(() => loadGatewayConfig({ GATEWAY_COMMAND: '[]' }), { message: /GATEWAY_COMMAND/ });
  t.throws(() => loadGatewayConfig({ GATEWAY_COMMAND: '["x"]' }, ['--', 'y']), { message: /not both/ });
  t.throws(() => loadGatewayConfig({ GATEWAY_SOURCE: 'attach', POD_NAMESPACE: 'tools', GATEWAY_SECRET: SECRET }), {
    message: /needs POD_NAME, GATEWAY_TARGET_CONTAINER/,
  });
});
