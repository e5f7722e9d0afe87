// A connect's headers and URL variables against what the connector's preset declares: unknown,
// missing, fixed, reserved and malformed inputs are refused naming the field; variables are bound
// into the URL and can change neither its host nor its path's shape.
import test from 'ava';
import { connectInputs, presetInputFields } from '../../catalog/connect-inputs';
import { parsePresets } from '../../catalog/presets';
import { ConnectRequestSchema, fieldErrors } from '../../contract/schemas';
import { bindUrl, headerNameRefusal, urlVariables } from '../../contract/upstream-inputs';
import { upstreamRequestHeaders } from '../../proxy/forward-headers';

const [preset] = parsePresets(JSON.stringify([{
  url: 'http://127.0.0.1:9/{tenant}/mcp',
  metadata: { name: 'Tenant server' },
  headers: [
    { name: 'X-API-Key', secret: true, required: true, description: 'the key' },
    { name: 'X-Region', secret: false, default: 'eu', choices: ['eu', 'us'] },
    { name: 'X-Client', secret: false, value: 'connector-registry' },
  ],
  variables: { tenant: { description: 'your tenant' } },
}]));
const url = preset!.url;

const paths = (result: unknown) => (Array.isArray(result) ? result.map((e) => e.path) : []);

test('a preset URL keeps its template, normalised; its variables are listed once', (t) => {
  t.is(url, 'http://127.0.0.1:9/%7Btenant%7D/mcp');
  t.deepEqual(urlVariables(url), ['tenant']);
  t.deepEqual(urlVariables('https://{region}.example.com/{tenant}/x/{tenant}'), ['region', 'tenant']);
});

test('declared headers and variables bind: the fixed value and the default fill in, the URL is bound', (t) => {
  const result = connectInputs(url, preset, { headers: { 'x-api-key': 'k-123' }, variables: { tenant: 'acme' } });
  t.deepEqual(result, {
    headers: [{ name: 'X-API-Key', value: 'k-123', secret: true }, { name: 'X-Region', value: 'eu', secret: false }, { name: 'X-Client', value: 'connector-registry', secret: false }],
    variables: { tenant: 'acme' },
    env: [],
    boundUrl: 'http://127.0.0.1:9/acme/mcp',
  });
});

test('unknown, missing, fixed and off-choice inputs are refused, each naming its field', (t) => {
  t.deepEqual(paths(connectInputs(url, preset, { variables: { tenant: 'a' } })), ['headers.X-API-Key']);
  t.deepEqual(paths(connectInputs(url, preset, { headers: { 'X-API-Key': 'k' } })), ['variables.tenant']);
  t.deepEqual(paths(connectInputs(url, preset, { headers: { 'X-API-Key': 'k', 'X-Other': 'v' }, variables: { tenant: 'a', region: 'b' } })), ['headers.X-Other', 'variables.region']);
  t.deepEqual(paths(connectInputs(url, preset, { headers: { 'X-API-Key': 'k', 'X-Client': 'me' }, variables: { tenant: 'a' } })), ['headers.X-Client']);
  t.deepEqual(paths(connectInputs(url, preset, { headers: { 'X-API-Key': 'k', 'X-Region': 'mars' }, variables: { tenant: 'a' } })), ['headers.X-Region']);
});

test('a variable value that would change the host or the path is refused', (t) => {
  for (const value of ['a/b', '..', '.', 'evil.com@x', 'a:1', 'a?b', 'a#b', 'a%2Fb', 'a b', '']) {
    const result = connectInputs(url, preset, { headers: { 'X-API-Key': 'k' }, variables: { tenant: value } });
    t.deepEqual(paths(result), ['variables.tenant'], JSON.stringify(value));
  }
  t.is(bindUrl('https://{region}.example.com/{tenant}/mcp', { region: 'eu-1', tenant: 'acme' }), 'https://eu-1.example.com/acme/mcp');
  t.throws(() => bindUrl(url, {}), { message: /tenant is not bound/ });
});

test('without a preset, the owner may set headers the proxy does not own, and binds no variables', (t) => {
  t.deepEqual(connectInputs('https://mcp.example.com/mcp', undefined, { headers: { 'X-Team': 'blue' } }), {
    headers: [{ name: 'X-Team', value: 'blue', secret: true }], variables: {}, env: [], boundUrl: null,
  });
  t.deepEqual(paths(connectInputs('https://mcp.example.com/mcp', undefined, { variables: { x: 'y' } })), ['variables.x']);
});

test('the connect body refuses reserved header names and values a parser could misread', (t) => {
  for (const name of ['Host', 'content-length', 'Transfer-Encoding', 'Connection', 'Authorization', 'Mcp-Session-Id', 'MCP-Protocol-Version', 'Cookie', 'x-forwarded-for', 'Bad Name', 'a:b']) {
    const parsed = ConnectRequestSchema.safeParse({ headers: { [name]: 'v' } });
    t.false(parsed.success, name);
    t.true(fieldErrors(parsed.error!).some((e) => e.path === `headers.${name}`), name);
  }
  for (const value of ['a\r\nX-Injected: 1', 'a\nb', ' padded', 'nul\u0000', 'é', 'x'.repeat(4097)]) {
    t.false(ConnectRequestSchema.safeParse({ headers: { 'X-Key': value } }).success, JSON.stringify(value).slice(0, 40));
  }
  t.true(ConnectRequestSchema.safeParse({ headers: { 'X-Key': 'a b=c' }, variables: { tenant: 'acme' } }).success);
  t.regex(headerNameRefusal('Authorization')!, /access_token/);
  t.truthy(headerNameRefusal('__proto__'), 'a preset may not declare it (a body\'s is dropped by the parser)');
});

test('GET /presets lists what a connect supplies, never a secret\'s default or a fixed value', (t) => {
  t.deepEqual(presetInputFields(preset!), [
    { name: 'tenant', in: 'url', secret: false, required: true, description: 'your tenant' },
    { name: 'X-API-Key', in: 'header', secret: true, required: true, description: 'the key' },
    { name: 'X-Region', in: 'header', secret: false, required: false, default: 'eu' },
  ]);
});

test('a preset that names an unknown variable, declares a header twice or one the proxy owns is refused', (t) => {
  const bad = (p: object) => t.throws(() => parsePresets(JSON.stringify([{ url: 'https://x.example.com/{t}/mcp', ...p }])));
  bad({ variables: { other: {} } });
  bad({ headers: [{ name: 'X-A' }, { name: 'x-a' }] });
  bad({ headers: [{ name: 'Cookie' }] });
  bad({ variables: { t: { default: 'a/b' } } });
});

test('the proxy sends the connector\'s headers, never the caller\'s of the same names', (t) => {
  const out = upstreamRequestHeaders({ 'x-api-key': 'caller-key', accept: 'application/json' }, 'up.example.com', 0, undefined, undefined, { 'x-api-key': 'connector-key' });
  t.is(out['x-api-key'], 'connector-key');
  const none = upstreamRequestHeaders({ 'x-api-key': 'caller-key' }, 'up.example.com', 0);
  t.is(none['x-api-key'], undefined);
});

test("a stdio preset's env_inputs: only declared names, required ones given, none the preset sets itself", (t) => {
  const stdio = (envInputs: object[], extra: object = {}) => parsePresets(JSON.stringify([{ url: 'mcp+stdio://keyed', stdio: { image: 'x/y', env_inputs: envInputs, ...extra } }]));
  const [keyed] = stdio([{ name: 'API_KEY', required: true }, { name: 'REGION', secret: false }]);
  t.deepEqual(connectInputs(keyed!.url, keyed, { env: { API_KEY: 'k' } }), { headers: [], variables: {}, env: [{ name: 'API_KEY', value: 'k' }], boundUrl: null });
  t.deepEqual(paths(connectInputs(keyed!.url, keyed, { env: { REGION: 'eu' } })), ['env.API_KEY']);
  t.deepEqual(paths(connectInputs(keyed!.url, keyed, { env: { API_KEY: 'k', api_key: 'k', PATH: '/tmp' } })), ['env.api_key', 'env.PATH']);
  t.deepEqual(presetInputFields(keyed!), [{ name: 'API_KEY', in: 'env', secret: true, required: true }, { name: 'REGION', in: 'env', secret: false, required: false }]);
  t.throws(() => stdio([{ name: 'TOKEN' }], { access_token_env_name: 'TOKEN' }), { message: /set by the preset already/ });
  t.throws(() => stdio([{ name: 'MODE' }], { env: { MODE: 'fixed' } }), { message: /set by the preset already/ });
  t.throws(() => stdio([{ name: 'A' }, { name: 'A' }]), { message: /declared twice/ });
  t.false(ConnectRequestSchema.safeParse({ env: { 'BAD-NAME': 'v' } }).success);
  t.false(ConnectRequestSchema.safeParse({ env: { OK: 'nul\u0000' } }).success);
});
