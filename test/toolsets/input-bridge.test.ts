// The ids of the questions a toolset asks a 2025 client for a 2026 member: only an answer to a
// question asked in the same session is kept, so no caller can fill the answer store with others.
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { SecretBox } from '../../platform/secret-box';
import { askedHere, keepAnswer, memoryAnswerStore, questionId } from '../../proxy/toolset/input-bridge';

const deps = { answers: memoryAnswerStore(), secrets: new SecretBox(randomBytes(32)) };
const nonce = 'n0nce';
const idFor = (session: string, key: string) => questionId(deps, session, nonce, key);

test('an id made for the session and key is recognised; another session, key or a forged tag is not', (t) => {
  const id = idFor('session-a', 'confirm');
  t.true(askedHere(deps, 'session-a', id));
  t.false(askedHere(deps, 'session-b', id), 'another session');
  t.false(askedHere(deps, 'session-a', id.replace(/:confirm$/, ':other')), 'another key under the tag');
  for (const forged of ['toolset-input:x:confirm', `toolset-input:${nonce}.AAAAAAAAAAAAAAAAAAAAAA:confirm`, 'toolset-input:', 'toolset-input:a:b.c']) t.false(askedHere(deps, 'session-a', forged), forged);
});

test('keepAnswer stores an answer to a question asked, and drops one to a question never asked', async (t) => {
  const asked = idFor('session-a', 'confirm');
  await keepAnswer(deps, 'session-a', { jsonrpc: '2.0', id: asked, result: { action: 'accept' } });
  await keepAnswer(deps, 'session-a', { jsonrpc: '2.0', id: 'toolset-input:made-up.tag:confirm', result: { action: 'accept' } });
  const taken = await deps.answers.take('session-a', [asked, 'toolset-input:made-up.tag:confirm']);
  t.deepEqual([...taken.keys()], [asked]);
});
