// The release-download mechanics against a local server (the real release URLs need internet).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { createLogger } from '../../core/logger';
import { downloadBinary, releaseUrl } from '../../stack/toolchain/download';

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
  server?.close();
  await rm(scratch, { recursive: true, force: true });
});

test('the release URLs are the pinned official ones for this platform', (t) => {
  t.regex(releaseUrl('temporal'), /^https:\/\/temporal\.download\/cli\/archive\/v1\.5\.1\?platform=(linux|darwin)&arch=(amd64|arm64)$/);
  if (process.platform === 'linux') {
    t.regex(releaseUrl('ferretdb'), /^https:\/\/github\.com\/FerretDB\/FerretDB\/releases\/download\/v1\.24\.2\/ferretdb-linux-(amd64|arm64)$/);
  } else {
    t.throws(() => releaseUrl('ferretdb'), { message: /Linux binaries only/ });
  }
});

test('a tar.gz archive (behind a redirect) yields just the executable, in place', async (t) => {
  const binDir = join(scratch, 'bin-archive');
  const path = await downloadBinary('temporal', binDir, log, `${base}/redirect`);
  t.is(path, join(binDir, 'temporal'));
  t.is((await exec(path)).stdout.trim(), 'temporal-from-archive');
  t.deepEqual(await readdir(binDir), ['temporal'], 'no temporary files are left behind');
});

test('a bare binary is stored executable', async (t) => {
  const binDir = join(scratch, 'bin-bare');
  const path = await downloadBinary('ferretdb', binDir, log, `${base}/ferretdb`);
  t.is((await exec(path)).stdout.trim(), 'ferretdb-from-release');
});

test('a failed download leaves nothing behind and says why', async (t) => {
  const binDir = join(scratch, 'bin-missing');
  await t.throwsAsync(downloadBinary('ferretdb', binDir, log, `${base}/nothing-here`), { message: /HTTP 404/ });
  t.false(existsSync(join(binDir, 'ferretdb')));
  t.deepEqual(await readdir(binDir), []);
});
