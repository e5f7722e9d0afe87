// `npm ci` prints no EBADENGINE warning on a supported Node, and no warning of install scripts
// nobody reviewed (npm 11.19+: package.json's allowScripts). Every package of the lock that names
// the Node it needs takes the oldest supported 20 and 24 (package.json's engines). Test-only
// tools that want a newer Node come with the toolchain's Node 24 (stack/toolchain/node24-tools.ts).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import test from 'ava';
import { NODE24_TOOLS } from '../../stack/toolchain/node24-tools';

const require = createRequire(import.meta.url);
const semver = require('semver') as { satisfies(version: string, range: string): boolean; minVersion(range: string): { version: string } | null };
const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as { packages: Record<string, { engines?: { node?: string }; optional?: boolean; hasInstallScript?: boolean }> };

test('every package of the lock takes the oldest Node 20 and Node 24 that package.json supports', (t) => {
  const supported = lock.packages['']!.engines!.node!;
  const floors = supported.split('||').map((range) => semver.minVersion(range.trim())!.version);
  t.deepEqual(floors, ['20.19.0', '24.12.0']);
  const refusing = Object.entries(lock.packages)
    .filter(([name, pkg]) => name !== '' && pkg.engines?.node && floors.some((node) => !semver.satisfies(node, pkg.engines!.node!)))
    .map(([name, pkg]) => `${name} wants ${pkg.engines!.node}`);
  t.deepEqual(refusing, []);
});

test('the tools that want a newer Node are not in package.json', (t) => {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { devDependencies: Record<string, string> };
  for (const tool of Object.keys(NODE24_TOOLS)) t.false(tool in manifest.devDependencies, tool);
});

test('every package of the lock with an install script is allowed or refused by name, so npm ci has nothing to warn of', (t) => {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { allowScripts: Record<string, boolean> };
  const withScripts = Object.entries(lock.packages).filter(([, pkg]) => pkg.hasInstallScript).map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
  t.true(withScripts.length > 0, 'the lock records install scripts');
  t.deepEqual([...new Set(withScripts)].filter((name) => !(name in manifest.allowScripts)), []);
});
