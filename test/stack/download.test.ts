// The release-download mechanics against a local server (the real release URLs need internet).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { createLogger } from '../../platform/logger';
import { downloadBinary } from '../../stack/toolchain/download';
import { officialRelease, releaseFor } from '../../stack/toolchain/releases';

const exec = promisify(execFile);
const log = createLogger('test-download', process.env.LOG_LEVEL ?? 'error');
let scratch: string;
let server: Server;
let base: string;

test.before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'download-'));
  const archiveDir = join(scratch, 'archive');
  await mkdir(archiveDir);
  await writeFile(join(archiveDir, 'temporal'), '#!/bin/sh\necho temporal-from-archive\n');
  await writeFile(join(archiveDir, 'LICENSE'), 'not a binary\n');
  await exec('tar', ['-czf', join(scratch, 'temporal.tar.gz'), '-C', archiveDir, 'temporal', 'LICENSE']);
  const files: Record<string, Buffer> = {
    '/temporal.tar.gz': await readFile(join(scratch, 'temporal.tar.gz')),
    '/ferretdb': Buffer.from('#!/bin/sh\necho ferretdb-from-release\n'),
  };
  server = createServer((req, res) => {
    // A server that takes the connection and never answers, as a black-holed network does.
    if (req.url === '/silent') return;
    // Release hosts answer with a redirect to the storage that has the file.
    if (req.url === '/redirect') return void res.writeHead(302, { location: '/temporal.tar.gz' }).end();
    const body = files[req.url ?? ''];
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

test.after.always(async () => {
  server?.closeAllConnections();
  server?.close();
  await rm(scratch, { recursive: true, force: true });
});

const linux = { os: 'linux', arch: 'amd64' } as const;

test('the release URLs are the pinned official ones', (t) => {
  t.is(officialRelease('temporal', linux)?.url, 'https://temporal.download/cli/archive/v1.5.1?platform=linux&arch=amd64');
  t.is(officialRelease('temporal', linux)?.member, 'temporal');
  t.is(officialRelease('ferretdb', linux)?.url, 'https://github.com/FerretDB/FerretDB/releases/download/v1.24.2/ferretdb-linux-amd64');
  t.is(officialRelease('etcd', linux)?.url, 'https://github.com/etcd-io/etcd/releases/download/v3.6.14/etcd-v3.6.14-linux-amd64.tar.gz');
  t.is(officialRelease('etcd', linux)?.member, 'etcd-v3.6.14-linux-amd64/etcd');
  t.is(officialRelease('kwokctl', linux)?.url, 'https://github.com/kubernetes-sigs/kwok/releases/download/v0.8.0/kwokctl-linux-amd64');
  t.is(officialRelease('kube-apiserver', linux)?.url, 'https://dl.k8s.io/release/v1.36.1/bin/linux/amd64/kube-apiserver');
  t.is(officialRelease('helm', linux)?.url, 'https://get.helm.sh/helm-v3.22.0-linux-amd64.tar.gz');
  t.is(officialRelease('helm', linux)?.member, 'linux-amd64/helm');
});

test('platforms without a release have none, and a mirror serves the same file names', (t) => {
  const mac = { os: 'darwin', arch: 'arm64' } as const;
  t.is(officialRelease('ferretdb', mac), null);
  t.is(officialRelease('kube-scheduler', mac), null);
  t.is(officialRelease('kwok', mac)?.asset, 'kwok-darwin-arm64');
  t.is(officialRelease('no-such-binary', linux), null);
  const mirrored = releaseFor('kwok', { CONNECTOR__RELEASE_MIRROR: 'http://127.0.0.1:9/releases/' });
  t.regex(mirrored?.url ?? '', /^http:\/\/127\.0\.0\.1:9\/releases\/kwok-(linux|darwin)-(amd64|arm64)$/);
});

test('the mirror\'s old name (CONNECTOR_REGISTRY_RELEASE_MIRROR) is no longer read: only CONNECTOR__RELEASE_MIRROR names a mirror', (t) => {
  const old = releaseFor('kwok', { CONNECTOR_REGISTRY_RELEASE_MIRROR: 'http://127.0.0.1:9/old' });
  t.false(old?.url.startsWith('http://127.0.0.1:9/old/') ?? false);
  const both = releaseFor('kwok', { CONNECTOR_REGISTRY_RELEASE_MIRROR: 'http://127.0.0.1:9/old', CONNECTOR__RELEASE_MIRROR: 'http://127.0.0.1:9/new' });
  t.true(both?.url.startsWith('http://127.0.0.1:9/new/kwok-'));
});

test('a tar.gz archive (behind a redirect) yields just the executable, in place', async (t) => {
  const binDir = join(scratch, 'bin-archive');
  const path = await downloadBinary('temporal', { url: `${base}/redirect`, asset: 'temporal.tar.gz', member: 'temporal' }, binDir, log);
  t.is(path, join(binDir, 'temporal'));
  t.is((await exec(path)).stdout.trim(), 'temporal-from-archive');
  t.deepEqual(await readdir(binDir), ['temporal'], 'no temporary files are left behind');
});

test('a bare binary is stored executable', async (t) => {
  const binDir = join(scratch, 'bin-bare');
  const path = await downloadBinary('ferretdb', { url: `${base}/ferretdb`, asset: 'ferretdb' }, binDir, log);
  t.is((await exec(path)).stdout.trim(), 'ferretdb-from-release');
});

test('a failed download leaves nothing behind and says why', async (t) => {
  const binDir = join(scratch, 'bin-missing');
  await t.throwsAsync(downloadBinary('ferretdb', { url: `${base}/nothing-here`, asset: 'x' }, binDir, log), { message: /HTTP 404/ });
  t.false(existsSync(join(binDir, 'ferretdb')));
  t.deepEqual(await readdir(binDir), []);
});

test('a server that never answers is given up on after the reach timeout, leaving nothing', async (t) => {
  const binDir = join(scratch, 'bin-silent');
  await t.throwsAsync(downloadBinary('kwok', { url: `${base}/silent`, asset: 'x' }, binDir, log, 300), { message: /no answer within 300 ms/ });
  t.deepEqual(await readdir(binDir), []);
});
