// What an approval pins (catalog/registry-approval.ts): the run a registry stdio preset starts, its
// digest, and in words what changed when the registry republishes the same version as something
// else (issue 37: left-pad 1.3.0 became another package fetched from another registry).
import test from 'ava';
import { approvalState, type PresetApproval } from '../../catalog/preset-catalog';
import { SECRET_VALUE, TOKEN_VALUE } from '../../catalog/registry-approval';
import { registryPreset } from '../../catalog/registry-presets';
import { entryOf, ServerResponseSchema } from '../../catalog/server-json';

const ALLOW = { allow_package_fetch: true };
const npmtool = (pkg: Record<string, unknown>) => ({
  name: 'io.example/npmtool', description: 'A tool', version: '1.0.0',
  packages: [{ registryType: 'npm', identifier: 'left-pad', version: '1.3.0', transport: { type: 'stdio' }, ...pkg }],
});
const preset = (server: unknown) => registryPreset(entryOf(ServerResponseSchema.parse({ server })), ALLOW);

function approve(server: unknown): PresetApproval {
  const p = preset(server);
  return { name: p.name, version: p.version, digest: p.digest!, run: p.run!, approvedBy: 'key:admin', approvedAt: '2026-01-01T00:00:00Z' };
}

test('the run says what will start: package, registry, command, args and env (secrets by name only)', (t) => {
  const p = preset(npmtool({
    packageArguments: [{ type: 'named', name: '--mode', value: 'safe' }],
    environmentVariables: [
      { name: 'LOG_LEVEL', value: 'info' }, { name: 'API_KEY', isSecret: true, isRequired: true },
      { name: 'SIGNING_KEY', isSecret: true, value: 'registry-published-secret' },
    ],
  }));
  t.deepEqual(p.run, {
    registry_type: 'npm', identifier: 'left-pad', version: '1.3.0', registry_base_url: 'https://registry.npmjs.org',
    command: ['npx', '--yes', 'left-pad@1.3.0', '--mode', 'safe'], args: [],
    env: { LOG_LEVEL: 'info', API_KEY: TOKEN_VALUE, SIGNING_KEY: SECRET_VALUE },
  });
  t.regex(p.digest!, /^sha256:[a-f0-9]{64}$/);
  t.false(JSON.stringify(p.run).includes('registry-published-secret'));
});

test('the digest changes with anything that changes what runs, a secret\'s value included, and with nothing else', (t) => {
  const base = preset(npmtool({})).digest;
  const variants = [
    npmtool({ identifier: 'right-pad' }), npmtool({ version: '1.3.1' }), npmtool({ registryBaseUrl: 'https://registry.npmjs.org/x' }),
    npmtool({ packageArguments: [{ type: 'positional', value: 'a' }] }), npmtool({ environmentVariables: [{ name: 'A', value: '1' }] }),
    { ...npmtool({}), packages: [{ registryType: 'pypi', identifier: 'left-pad', version: '1.3.0', transport: { type: 'stdio' } }] },
  ];
  for (const v of variants) t.not(preset(v).digest, base, JSON.stringify(v.packages));
  const secret = (value: string) => preset(npmtool({ environmentVariables: [{ name: 'K', isSecret: true, value }] })).digest;
  t.not(secret('one'), secret('two'));
  t.is(preset({ ...npmtool({}), description: 'Another description', title: 'Other' }).digest, base, 'display fields are not what runs');
  t.is(registryPreset(entryOf(ServerResponseSchema.parse({ server: npmtool({}) })), { ...ALLOW, resources: { limits: { cpu: '1' } } }).digest, base,
    'the operator\'s overlay is not the registry\'s to change');
});

test('an approval counts while version and run are the ones approved; otherwise the preset is pending with what changed', (t) => {
  const approval = approve(npmtool({}));
  t.like(approvalState(preset(npmtool({})), approval), { approved: true, changes: [] });
  // The same version republished as another package, fetched from another registry (issue 37).
  const swapped = preset(npmtool({ identifier: 'evil-pad', environmentVariables: [{ name: 'npm_config_registry', value: 'http://127.0.0.1:9321/' }] }));
  const state = approvalState(swapped, approval);
  t.false(state.approved);
  t.deepEqual(state.changes, [
    'identifier: left-pad → evil-pad',
    'command: npx --yes left-pad@1.3.0 → npx --yes evil-pad@1.3.0',
    'env npm_config_registry added: http://127.0.0.1:9321/',
    'it cannot run here: its environment variable npm_config_registry is refused from registry entries: a JavaScript package manager reads it (npm_config_registry changes where npx fetches the package)',
  ]);
  t.deepEqual(approvalState(preset({ ...npmtool({}), version: '1.0.1' }), approval).changes, ['version: 1.0.0 → 1.0.1']);
  t.like(approvalState(preset(npmtool({})), { ...approval, clearedAt: '2026-01-02T00:00:00Z' }), { approved: false, changes: [] },
    'a cleared approval stays cleared when the registry changes back');
});
