// DATA_DIR and the generated key are closed to every other user (local stdio servers run as
// other uids on this machine), also when an older version or a umask left them open.
import { chmodSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { loadConfig } from '../../config/config';
import { createLogger } from '../../platform/logger';
import { encryptionKey } from '../../service/services';

const log = createLogger('test-private-files', 'silent');
const modeOf = (path: string) => statSync(path).mode & 0o777;

test('a generated key: DATA_DIR 0700, the key file 0600', (t) => {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'private-files-')), 'new', 'data');
  encryptionKey(loadConfig({ DATA_DIR: dataDir }), log);
  t.is(modeOf(dataDir), 0o700);
  t.is(modeOf(join(dataDir, 'encryption.key')), 0o600);
});

test('a DATA_DIR and key left open (0755, 0644) are closed at start, and the key is kept', (t) => {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'private-files-')), 'data');
  mkdirSync(dataDir);
  chmodSync(dataDir, 0o755);
  const file = join(dataDir, 'encryption.key');
  writeFileSync(file, `${'cd'.repeat(32)}\n`);
  chmodSync(file, 0o644);
  const key = encryptionKey(loadConfig({ DATA_DIR: dataDir }), log);
  t.is(key.toString('hex'), 'cd'.repeat(32));
  t.is(modeOf(dataDir), 0o700);
  t.is(modeOf(file), 0o600);
});
