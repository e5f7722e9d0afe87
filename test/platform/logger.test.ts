// The logger: every secret-bearing field is redacted, at the top of a line and nested the way the
// code logs it; the pretty format is chosen only for a terminal or LOG_FORMAT=pretty.
import { Writable } from 'node:stream';
import test from 'ava';
import { loadConfig } from '../../config/config';
import { createLogger, interactiveLogFormat, REDACTION_MARKER, SECRET_FIELDS, type LogFormat } from '../../platform/logger';
import { logReady, readyAddresses, readyBanner } from '../../stack/ready-banner';

function capture(format: LogFormat = 'json') {
  const chunks: string[] = [];
  const stream = new Writable({ write(chunk, _encoding, done) { chunks.push(String(chunk)); done(); } });
  const logger = createLogger('logger-test', 'info', stream, format);
  return { logger, text: () => chunks.join('') };
}

const lastJson = (text: string) => JSON.parse(text.trim().split('\n').at(-1)!) as Record<string, any>;

for (const field of SECRET_FIELDS) {
  test(`${field} is redacted at the top of a line and nested`, (t) => {
    const secret = `secret-${field}-4f9c1e`;
    const { logger, text } = capture();
    logger.info({ [field]: secret }, 'top');
    t.is(lastJson(text())[field], REDACTION_MARKER);
    logger.info({ outer: { [field]: secret } }, 'one level');
    t.is(lastJson(text()).outer[field], REDACTION_MARKER);
    logger.info({ req: { headers: { [field]: secret } } }, 'two levels');
    t.is(lastJson(text()).req.headers[field], REDACTION_MARKER);
    logger.info({ err: { cause: { headers: { [field]: secret } } } }, 'three levels');
    t.is(lastJson(text()).err.cause.headers[field], REDACTION_MARKER);
    logger.child({ [field]: secret }).info('in a child binding');
    t.is(lastJson(text())[field], REDACTION_MARKER);
    t.false(text().includes(secret));
  });
}

test('the shapes the code logs: request headers, a preset, the Temporal access, the gateway config, an array of tokens', (t) => {
  const { logger, text } = capture();
  logger.info({ req: { headers: { authorization: 'Bearer caller-key-1', cookie: 'sid=cookie-2', 'x-connector-gateway-secret': 'gw-secret-3' } } });
  logger.info({ preset: { url: 'mcp+stdio://x', stdio: { image: 'i', env: { API_KEY: 'preset-env-4' } } } });
  logger.info({ temporal: { access: { apiKey: 'temporal-key-5', tls: { clientKey: 'private-key-6', serverName: 'kept' } } } });
  logger.info({ config: { secret: 'gateway-secret-7', port: 8080 } });
  logger.info({ tokens: [{ access_token: 'array-token-8', refresh_token: 'array-refresh-9' }] });
  logger.info({ ctx: { query: { code: 'callback-code-10', state: 'callback-state-11' } } });
  for (const secret of ['caller-key-1', 'cookie-2', 'gw-secret-3', 'preset-env-4', 'temporal-key-5', 'private-key-6', 'gateway-secret-7', 'array-token-8', 'array-refresh-9', 'callback-code-10', 'callback-state-11']) {
    t.false(text().includes(secret), secret);
  }
  const lines = text().trim().split('\n').map((l) => JSON.parse(l));
  t.is(lines[0].req.headers['x-connector-gateway-secret'], REDACTION_MARKER);
  t.is(lines[1].preset.stdio.env, REDACTION_MARKER);
  t.is(lines[2].temporal.access.tls.serverName, 'kept', 'only the secret fields go');
  t.is(lines[3].config.port, 8080);
  t.is(lines[5].ctx.query.code, REDACTION_MARKER);
});

test('URLs keep their origin and path only: no credentials, query or fragment (MONGODB_URI, an OAuth callback, a connector URL)', (t) => {
  const { logger, text } = capture();
  logger.info({ mongodb: 'mongodb://admin:mongo-pass-1@db.internal:27017/registry?authSource=admin' });
  logger.info({ MONGODB_URI: 'mongodb+srv://u:mongo-pass-2@cluster.example/' });
  logger.info({ req: { url: '/oauth/callback?code=oauth-code-3&state=oauth-state-4&iss=https%3A%2F%2Fas' } });
  logger.info({ target: { href: new URL('https://u:url-pass-5@mcp.example/mcp?access_token=query-token-6&x=1') } });
  logger.info({ authorizationUrl: 'https://as.example/authorize?state=oauth-state-7&code_challenge=c' });
  logger.info({ connector: { serverUri: 'https://mcp.example/mcp?region=eu-8&api_key=key-9' } });
  for (const secret of ['mongo-pass-1', 'mongo-pass-2', 'oauth-code-3', 'oauth-state-4', 'url-pass-5', 'query-token-6', 'oauth-state-7', 'eu-8', 'key-9']) {
    t.false(text().includes(secret), secret);
  }
  const lines = text().trim().split('\n').map((l) => JSON.parse(l));
  t.is(lines[0].mongodb, 'mongodb://db.internal:27017/registry');
  t.is(lines[2].req.url, '/oauth/callback');
  t.is(lines[3].target.href, 'https://mcp.example/mcp');
  t.is(lines[4].authorizationUrl, REDACTION_MARKER);
  t.is(lines[5].connector.serverUri, 'https://mcp.example/mcp');
});

test('the pretty format redacts too, and is not JSON', (t) => {
  const { logger, text } = capture('pretty');
  logger.info({ req: { headers: { authorization: 'Bearer pretty-secret-1' } }, refresh_token: 'pretty-secret-2' }, 'hello');
  t.false(text().includes('pretty-secret'));
  t.true(text().includes(REDACTION_MARKER));
  t.regex(text(), /INFO.*hello/);
  t.throws(() => JSON.parse(text()));
});

test('pretty only on a terminal or with LOG_FORMAT=pretty; JSON otherwise and by default', (t) => {
  t.is(interactiveLogFormat({}, true), 'pretty');
  t.is(interactiveLogFormat({}, false), 'json');
  t.is(interactiveLogFormat({ LOG_FORMAT: 'json' }, true), 'json');
  t.is(interactiveLogFormat({ LOG_FORMAT: 'pretty' }, false), 'pretty');
  const { logger, text } = capture();
  logger.info('default');
  t.is(lastJson(text()).msg, 'default', 'createLogger without a format writes JSON');
});

test('a LOG_FORMAT other than json or pretty stops start-up naming it', (t) => {
  t.throws(() => loadConfig({ LOG_FORMAT: 'xml' }), { message: /LOG_FORMAT/ });
  t.notThrows(() => loadConfig({ LOG_FORMAT: 'pretty' }));
});

const stack = { baseUrl: 'http://localhost:18080', temporalUiUrl: 'http://127.0.0.1:18233', temporalAddress: '127.0.0.1:17233', mongoUri: 'mongodb://user:banner-pass@127.0.0.1:27017/' };

test('the ready banner names the API, OpenAPI and Temporal Web UI addresses', (t) => {
  const banner = readyBanner({ api: stack.baseUrl, openapi: `${stack.baseUrl}/api/v1/openapi.json`, temporalUi: stack.temporalUiUrl });
  t.regex(banner, /API\s+http:\/\/localhost:18080\n/);
  t.regex(banner, /OpenAPI\s+http:\/\/localhost:18080\/api\/v1\/openapi\.json/);
  t.regex(banner, /Temporal Web UI\s+http:\/\/127\.0\.0\.1:18233/);
  const { logger, text } = capture('pretty');
  logReady(logger, 'pretty', stack);
  t.regex(text(), /Console\s+http:\/\/localhost:18080\/\n/, 'the web console first, where a person opens it');
  t.regex(text(), /API reference\s+http:\/\/localhost:18080\/reference\n/);
  t.true(text().includes(readyBanner(readyAddresses(stack))));
  t.false(text().includes('banner-pass'));
});

test('without the Web UI (the default) the banner and the ready line name no Temporal Web UI', (t) => {
  const headless = { ...stack, temporalUiUrl: undefined };
  const banner = readyBanner({ api: headless.baseUrl, openapi: `${headless.baseUrl}/api/v1/openapi.json` });
  t.regex(banner, /API\s+http:\/\/localhost:18080\n/);
  t.notRegex(banner, /Temporal Web UI/);
  const pretty = capture('pretty');
  logReady(pretty.logger, 'pretty', headless);
  t.notRegex(pretty.text(), /Web UI/);
  const json = capture('json');
  logReady(json.logger, 'json', headless);
  const line = lastJson(json.text());
  t.is(line.temporalUi, undefined);
  t.is(line.msg, `connector registry ready at ${headless.baseUrl}`);
});

test('the ready line in JSON carries the addresses as fields', (t) => {
  const { logger, text } = capture('json');
  logReady(logger, 'json', stack);
  const line = lastJson(text());
  t.like(line, { api: stack.baseUrl, openapi: `${stack.baseUrl}/api/v1/openapi.json`, temporalUi: stack.temporalUiUrl, temporal: stack.temporalAddress });
  t.is(line.mongodb, 'mongodb://127.0.0.1:27017/');
});

test('an error under err or error (the Temporal SDK\'s key) keeps its type and message, without a URL\'s credentials or query', (t) => {
  const { logger, text } = capture();
  // The shape of a MongoDB driver error: its message is not an own enumerable field.
  const driverError = Object.assign(new Error('connection 5 to mongodb://admin:hunter2@db:27017/?authSource=admin closed'), { errorLabelSet: {} });
  driverError.name = 'MongoNetworkError';
  logger.warn({ error: driverError }, 'Activity failed');
  const logged = lastJson(text()).error;
  t.is(logged.type, 'Error');
  t.regex(logged.message, /^connection 5 to mongodb:\/\/\[redacted\]@db:27017\/\?\[redacted\] closed$/);
  t.false(text().includes('hunter2'));
  t.false(text().includes('authSource'));
  logger.error({ err: new Error('token endpoint https://as.example/token?code=abc123 answered 400') }, 'failed');
  t.regex(lastJson(text()).err.message, /https:\/\/as\.example\/token\?\[redacted\] answered 400/);
  t.false(text().includes('abc123'));
  logger.info({ error: 'a plain string stays as it is' }, 'not an error');
  t.is(lastJson(text()).error, 'a plain string stays as it is');
});

test('a Temporal failure keeps its own type (UpstreamError), not its class', (t) => {
  const { logger, text } = capture();
  logger.warn({ error: Object.assign(new Error('the MCP server refused the token'), { type: 'UpstreamError', nonRetryable: true }) }, 'Activity failed');
  t.like(lastJson(text()).error, { type: 'UpstreamError', nonRetryable: true, message: 'the MCP server refused the token' });
});
