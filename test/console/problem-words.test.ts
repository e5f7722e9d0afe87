// The console's words for the API's problems: every problem type the API declares has a sentence
// (a new failure type without one fails here), and what a person reads has no status number, no
// schema jargon and, unless an admin reads it, no variable name.
import test from 'ava';
import { openApiDocument } from '../../api/openapi';
import { WORDED_SLUGS, wordsFor } from '../../console/problem-words';

const said = (w: ReturnType<typeof wordsFor>) => [w.sentence, w.next ?? '', ...(w.fields ?? []).map((f) => `${f.label}: ${f.message}`)].join(' ');

test('every problem type the API declares has words', (t) => {
  const document = JSON.stringify(openApiDocument('http://localhost'));
  const slugs = new Set([...document.matchAll(/problems\/([a-z-]+)"/g)].map((m) => m[1]!));
  t.true(slugs.size > 10);
  for (const slug of slugs) t.true(WORDED_SLUGS.includes(slug), `words for ${slug}`);
});

test('an invalid body is said field by field in plain words, without a status or schema jargon', (t) => {
  const words = wordsFor({
    type: 'https://connector-registry.dev/problems/unprocessable-content', status: 422, detail: 'the request body is invalid',
    errors: [{ path: 'url', message: 'URL scheme ftp is not supported' }, { path: 'metadata.name', message: 'Too big: expected string to have <=512 characters' }],
  }, false);
  t.deepEqual(words.fields, [
    { label: 'MCP server URL', message: 'use an address that starts with https:// (or http://)' },
    { label: 'Name', message: 'is too long: at most 512 characters' },
  ]);
  t.notRegex(said(words), /422|Too big|expected|scheme|request body/);
  t.false(said(words).includes('invalid'), 'the detail is not repeated beside the fields');
});

test('a server that wants a token says so, with the next step', (t) => {
  const words = wordsFor({ type: 'https://connector-registry.dev/problems/token-required', status: 422, detail: 'the MCP server at http://127.0.0.1:3002 needs a credential (… HTTP 401): connect it with a token' }, false);
  t.regex(words.sentence, /needs a token/);
  t.regex(words.next ?? '', /Paste a token/);
  t.notRegex(said(words), /\b\d{3}\b/);
});

test('a refused token: the server\'s own words, without the HTTP status', (t) => {
  const words = wordsFor({ type: 'https://connector-registry.dev/problems/upstream-error', status: 502, detail: 'the MCP server refused the token (HTTP 401)' }, false);
  t.is(words.sentence, 'The MCP server answered with an error. The MCP server refused the token.');
  t.notRegex(said(words), /\b\d{3}\b/);
});

test('a detail naming a service variable: hidden from a non-admin, in the details line for an admin', (t) => {
  const problem = { type: 'https://connector-registry.dev/problems/unprocessable', status: 422, detail: 'http://10.0.0.5/mcp is in a private network; CONNECTOR__ALLOWED_PRIVATE_NETWORKS can allow it' };
  const user = wordsFor(problem, false);
  t.false(said(user).includes('CONNECTOR__'));
  t.is(user.details, undefined);
  const admin = wordsFor(problem, true);
  t.regex(admin.details ?? '', /CONNECTOR__ALLOWED_PRIVATE_NETWORKS/);
});
