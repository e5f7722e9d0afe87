// The workload identity token file (activities/workload-identity-token.ts): read anew at each
// request, so a rotation is seen by the next one; what is wrong with it is said naming the file,
// never its content.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { SignJWT } from 'jose';
import { readWorkloadToken, WorkloadTokenError } from '../../activities/workload-identity-token';

const key = new TextEncoder().encode('k'.repeat(32));
const token = (exp: number, sub = 'system:serviceaccount:mcp:registry') =>
  new SignJWT({ sub }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(exp).sign(key);
const now = () => Math.floor(Date.now() / 1000);

let dir: string;
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wif-token-'));
});
test.after.always(() => rm(dir, { recursive: true, force: true }));

test('a rotated file is read anew: each read returns what the file holds then, trimmed', async (t) => {
  const file = join(dir, 'rotating');
  const first = await token(now() + 3600, 'first');
  await writeFile(file, `${first}\n`);
  t.is(await readWorkloadToken(file), first);
  const second = await token(now() + 3600, 'second');
  await writeFile(file, second);
  t.is(await readWorkloadToken(file), second);
});

test('no file configured, a missing file, no JWT and an expired token are refused naming the file only', async (t) => {
  await t.throwsAsync(readWorkloadToken(null), { instanceOf: WorkloadTokenError, message: /CONNECTOR__WORKLOAD_IDENTITY_TOKEN_FILE/ });
  const missing = join(dir, 'missing');
  await t.throwsAsync(readWorkloadToken(missing), { instanceOf: WorkloadTokenError, message: new RegExp(`${missing}.*ENOENT`) });
  const opaque = join(dir, 'opaque');
  await writeFile(opaque, 'not-a-jwt-secret-value');
  const notJwt = await t.throwsAsync(readWorkloadToken(opaque), { instanceOf: WorkloadTokenError, message: /holds no JWT/ });
  t.false(notJwt!.message.includes('not-a-jwt-secret-value'));
  const old = join(dir, 'expired');
  const expired = await token(now() - 60);
  await writeFile(old, expired);
  const refused = await t.throwsAsync(readWorkloadToken(old), { instanceOf: WorkloadTokenError, message: /expired/ });
  t.false(refused!.message.includes(expired.split('.')[2]!));
});
