import test from 'ava';
import { BUILT_IN_PRESETS, findPreset, parsePresets, publicPreset } from '../../catalog/presets';

test('without CONNECTOR__PRESETS the three built-ins apply', (t) => {
  const presets = parsePresets(undefined);
  t.is(presets.length, 3);
  t.deepEqual(presets.map((p) => new URL(p.url).host), ['mcp.stripe.com', 'mcp.box.com', 'api.githubcopilot.com']);
  for (const p of presets) t.truthy(p.metadata?.name && p.metadata.description);
});

test('a configured list replaces the built-ins and normalises URLs', (t) => {
  const presets = parsePresets(JSON.stringify([{ url: 'HTTPS://Example.com:443/mcp', client_id: 'a', client_secret: 'b' }]));
  t.is(presets.length, 1);
  t.is(presets[0]!.url, 'https://example.com/mcp');
});

test('a bad entry names the entry and the field', (t) => {
  const stdioWithout = t.throws(() => parsePresets(JSON.stringify([{ url: 'https://ok.example/mcp' }, { url: 'mcp+stdio://x' }])));
  t.regex(stdioWithout!.message, /entry 1 \(mcp\+stdio:\/\/x\), field stdio/);
  const stdioOnHttps = t.throws(() => parsePresets(JSON.stringify([{ url: 'https://a.example', stdio: { image: 'i' } }])));
  t.regex(stdioOnHttps!.message, /entry 0 .*field stdio: only allowed/);
  const badScheme = t.throws(() => parsePresets(JSON.stringify([{ url: 'ftp://a' }])));
  t.regex(badScheme!.message, /entry 0 .*field url/);
  const secretAlone = t.throws(() => parsePresets(JSON.stringify([{ url: 'https://a.example', client_secret: 's' }])));
  t.regex(secretAlone!.message, /field client_secret/);
  t.throws(() => parsePresets('{not json'), { message: /not valid JSON/ });
  t.throws(() => parsePresets('{}'), { message: /JSON array/ });
  const unknownField = t.throws(() => parsePresets(JSON.stringify([{ url: 'mcp+stdio://x', stdio: { image: 'i', bogus: 1 } }])));
  t.regex(unknownField!.message, /field stdio/);
});

test('matching uses normalised URLs', (t) => {
  t.is(findPreset('https://MCP.STRIPE.com/', BUILT_IN_PRESETS)?.metadata?.name, 'Stripe');
  t.is(findPreset('https://api.githubcopilot.com/mcp/', BUILT_IN_PRESETS)?.metadata?.name, 'GitHub');
  t.is(findPreset('https://mcp.stripe.com/other', BUILT_IN_PRESETS), undefined);
});

test('the public view never shows credentials or env values', (t) => {
  const [preset] = parsePresets(JSON.stringify([{
    url: 'mcp+stdio://everything', client_id: 'cid', client_secret: 'csecret',
    metadata: { name: 'Everything', description: 'd' },
    stdio: { image: 'img:1', command: ['node'], env: { API_KEY: 'envsecret' }, access_token_env_name: 'TOKEN' },
  }]));
  const shown = JSON.stringify(publicPreset(preset!, 'local'));
  t.false(shown.includes('csecret'));
  t.false(shown.includes('cid'));
  t.false(shown.includes('envsecret'));
  t.deepEqual(publicPreset(preset!, 'local'), { url: 'mcp+stdio://everything', metadata: { name: 'Everything', description: 'd' }, stdio: { image: 'img:1' }, runnable: true });
});

test('a stdio preset defined by its image only is runnable on containers and Kubernetes, not on local processes', (t) => {
  const [imageOnly, remote] = parsePresets(JSON.stringify([{ url: 'mcp+stdio://img', stdio: { image: 'mcp/x:1' } }, { url: 'https://mcp.example.com/mcp' }]));
  for (const runtime of ['container', 'kubernetes'] as const) t.true(publicPreset(imageOnly!, runtime).runnable, runtime);
  const local = publicPreset(imageOnly!, 'local');
  t.false(local.runnable);
  t.regex(local.reason ?? '', /container or the Kubernetes runtime/);
  t.true(publicPreset(remote!, 'local').runnable, 'a remote preset runs anywhere');
});

test("a stdio preset's resources are Kubernetes quantities, requests not above limits", (t) => {
  const preset = (resources: unknown) => JSON.stringify([{ url: 'mcp+stdio://x', stdio: { image: 'i', resources } }]);
  const [ok] = parsePresets(preset({ requests: { cpu: '250m', memory: '128Mi' }, limits: { cpu: '1.5', memory: '1G' } }));
  t.deepEqual(ok!.stdio!.resources, { requests: { cpu: '250m', memory: '128Mi' }, limits: { cpu: '1.5', memory: '1G' } });
  const cases: Array<[unknown, RegExp]> = [
    [{ requests: { cpu: 'lots' } }, /field stdio\.resources\.requests\.cpu: must be a Kubernetes CPU quantity/],
    [{ limits: { memory: '512MB' } }, /field stdio\.resources\.limits\.memory: must be a Kubernetes memory quantity/],
    [{ limits: { memory: '0' } }, /field stdio\.resources\.limits\.memory: must be more than zero/],
    [{ requests: { memory: '2Gi' }, limits: { memory: '1Gi' } }, /field stdio\.resources\.requests\.memory: must not exceed limits\.memory/],
    [{ requests: { cpu: '1500m' }, limits: { cpu: '1' } }, /field stdio\.resources\.requests\.cpu: must not exceed limits\.cpu/],
    [{ requests: { gpu: '1' } }, /field stdio\.resources\.requests/],
  ];
  for (const [resources, message] of cases) {
    t.throws(() => parsePresets(preset(resources)), { message }, JSON.stringify(resources));
  }
});
