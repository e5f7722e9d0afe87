import crypto from 'node:crypto';
import test from 'ava';
import { SecretBox, parseKey, secretContext } from '../../platform/secret-box';

const box = new SecretBox(crypto.randomBytes(32));

test('seal and open round-trip, and the ciphertext does not contain the plaintext', (t) => {
  const sealed = box.seal('tok-abcdef-123456', secretContext('c1', 'access_token'));
  t.false(sealed.includes('tok-abcdef'));
  t.false(Buffer.from(sealed.split('.')[2] ?? '', 'base64url').toString().includes('tok-abcdef'));
  t.is(box.open(sealed, secretContext('c1', 'access_token')), 'tok-abcdef-123456');
});

test('two seals of the same value differ (random IV)', (t) => {
  t.not(box.seal('same', 'x'), box.seal('same', 'x'));
});

test('a ciphertext moved to another connector or field does not open', (t) => {
  const sealed = box.seal('secret', secretContext('c1', 'access_token'));
  t.throws(() => box.open(sealed, secretContext('c2', 'access_token')));
  t.throws(() => box.open(sealed, secretContext('c1', 'client_secret')));
});

test('a tampered ciphertext does not open', (t) => {
  const sealed = box.seal('secret', 'ctx');
  const parts = sealed.split('.');
  const body = Buffer.from(parts[2]!, 'base64url');
  body[0] = body[0]! ^ 1;
  parts[2] = body.toString('base64url');
  t.throws(() => box.open(parts.join('.'), 'ctx'));
});

test('another key does not open it', (t) => {
  const sealed = box.seal('secret', 'ctx');
  t.throws(() => new SecretBox(crypto.randomBytes(32)).open(sealed, 'ctx'));
});

test('keys are accepted as hex or base64 of 32 bytes, and refused otherwise', (t) => {
  const raw = crypto.randomBytes(32);
  t.deepEqual(parseKey(raw.toString('hex')), raw);
  t.deepEqual(parseKey(raw.toString('base64')), raw);
  t.throws(() => parseKey('abc'));
  t.throws(() => new SecretBox(crypto.randomBytes(16)));
});

test('a ciphertext whose tag was cut short does not open (the tag is pinned to 16 bytes)', (t) => {
  const sealed = box.seal('secret', 'ctx');
  const parts = sealed.split('.');
  t.is(Buffer.from(parts[3]!, 'base64url').length, 16, 'seal writes a 16-byte tag');
  // GCM's tag is a prefix-truncatable MAC: without the pin, the first 4, 8 or 12 bytes of a
  // genuine tag verify, and a short tag takes far fewer guesses to forge.
  for (const bytes of [4, 8, 12, 15]) {
    const cut = [...parts.slice(0, 3), Buffer.from(parts[3]!, 'base64url').subarray(0, bytes).toString('base64url')].join('.');
    t.throws(() => box.open(cut, 'ctx'), { message: /tag is not 16 bytes/ }, `${bytes} bytes`);
  }
  t.is(box.open(sealed, 'ctx'), 'secret');
});
