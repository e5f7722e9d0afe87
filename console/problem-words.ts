// What the console says when the API refuses: a sentence and a next step for the person at the
// screen, chosen by the problem's `type` (the API's failure table, contract/failures.ts, and the
// declarations name every one; test/console/problem-words.test.ts keeps this table complete).
// No status numbers, no schema jargon; a detail that names a service variable, which only an
// operator can set, is shown to admins alone, in a "details" line.

export interface ProblemLike {
  type?: string;
  status: number;
  title?: string;
  detail?: string;
  errors?: { path: string; message: string }[];
}

export interface Words {
  sentence: string;
  next?: string;
  /** Field by field, in words. */
  fields?: { label: string; message: string }[];
  /** Admins only: the service's own words, variables and all. */
  details?: string;
}

type Worded = { sentence: string; next?: string; showDetail?: boolean };

const SLUG_WORDS: Record<string, Worded> = {
  'bad-request': { sentence: 'The request could not be read.', next: 'Reload the page and try again.' },
  unauthorized: { sentence: 'Your sign-in was refused or has expired.', next: 'Sign in again.' },
  forbidden: { sentence: 'You may not do this here.', next: 'Ask an admin of the service if you need it.', showDetail: true },
  'not-found': { sentence: 'This is not there: it was deleted, or it is not yours.', next: 'Go back to the list.' },
  'session-not-found': { sentence: 'The MCP session is not known here (it expired, or the service restarted).', next: 'Start a new session: the MCP client connects again.' },
  'method-not-allowed': { sentence: 'This action is not offered here.' },
  conflict: { sentence: 'This cannot be done in the current state.', next: 'Wait a moment and try again.', showDetail: true },
  'invalid-state': { sentence: 'The connector is not in a state that allows this.', next: 'Wait until its state settles, then try again.', showDetail: true },
  cancelled: { sentence: 'A disconnect or delete overtook this connect.', next: 'Connect again if you still want it connected.' },
  'content-too-large': { sentence: 'What you sent is too large.', next: 'Shorten it and try again.' },
  'unsupported-media-type': { sentence: 'The request could not be read.', next: 'Reload the page and try again.' },
  'unprocessable-content': { sentence: 'Some of what you entered cannot be used.', next: 'Change it and try again.', showDetail: true },
  unprocessable: { sentence: 'The service cannot connect this server as it is.', next: 'Check the address and the credentials, then try again.', showDetail: true },
  'token-required': { sentence: 'This MCP server needs a token, and offers no sign-in to get one.', next: 'Paste a token it accepts into "Access token" and connect with it.' },
  'token-over-plain-http': { sentence: 'A token may not be sent to this server over plain http.', next: 'Use its https address.' },
  'authorization-failed': { sentence: 'The authorization did not complete.', next: 'Start the connect again.', showDetail: true },
  'too-many-requests': { sentence: 'Too many requests in a short time.', next: 'Wait a few seconds and try again.' },
  'rate-limited': { sentence: 'Too many requests in a short time.', next: 'Wait a few seconds and try again.' },
  'quota-exceeded': { sentence: 'You have reached the most this service allows you.', next: 'Delete something you no longer need, or ask an admin to raise the limit.' },
  'connector-busy': { sentence: 'This connector is handling as many calls as it may at once.', next: 'Try again in a moment.' },
  'not-approvable': { sentence: 'This preset cannot be approved.', showDetail: true },
  'run-changed': { sentence: 'What this preset runs changed since this page showed it.', next: 'Look at what it runs now, then approve it.' },
  'version-changed': { sentence: 'The preset changed since this page showed it.', next: 'Look at the new version, then approve it.' },
  'ambiguous-framing': { sentence: 'The request could not be read.', next: 'Reload the page and try again.' },
  'header-mismatch': { sentence: 'The request contradicts itself.', next: 'Reload the page and try again.' },
  'not-connected': { sentence: 'The connector is not connected.', next: 'Connect it first.' },
  'upstream-refused': { sentence: 'The MCP server refused the request.', next: 'Connect the connector again, with a token it accepts.', showDetail: true },
  'credentials-changed': { sentence: 'The connector\'s authorization server changed, and its client credentials are not sent to the new one.', next: 'Create the connector again with credentials for the new server.' },
  'request-header-fields-too-large': { sentence: 'The request was too large to read.', next: 'Sign out and in again.' },
  'upstream-error': { sentence: 'The MCP server answered with an error.', next: 'Check its address and your token, then try again.', showDetail: true },
  'upstream-timeout': { sentence: 'The MCP server did not answer in time.', next: 'Try again; if it keeps happening, the server may be down.' },
  'bad-gateway': { sentence: 'The MCP server could not be reached or answered with an error.', next: 'Try again in a moment.', showDetail: true },
  'gateway-timeout': { sentence: 'The MCP server did not answer in time.', next: 'Try again in a moment.' },
  'service-unavailable': { sentence: 'The service cannot be reached just now.', next: 'Try again in a moment.' },
  'internal-server-error': { sentence: 'The service failed to handle this.', next: 'Try again; if it keeps failing, tell the service\'s operator.' },
};

/** The slugs this table has words for (the test compares them with the API's). */
export const WORDED_SLUGS = Object.keys(SLUG_WORDS);

const GENERIC: Worded = { sentence: 'Something went wrong.', next: 'Try again.' };

/** CONNECTOR__SOMETHING, BASE_URL, MONGODB_URI...: a setting only the service's operator can change. */
const VARIABLE = /\b(?:[A-Z][A-Z0-9]*__[A-Z0-9_]+|BASE_URL|HOST|PORT|MONGODB_URI|TEMPORAL_[A-Z_]+)\b/;

const slugOf = (problem: ProblemLike) => problem.type?.split('/').pop() ?? '';

export function wordsFor(problem: ProblemLike, admin: boolean): Words {
  const known: Worded = SLUG_WORDS[slugOf(problem)] ?? SLUG_WORDS[statusSlug(problem.status)] ?? GENERIC;
  const fields = problem.errors?.map((e) => ({ label: labelOf(e.path), message: plainMessage(e.message) }));
  const detail = problem.detail?.trim();
  const names = detail ? VARIABLE.test(detail) : false;
  const shown = known.showDetail && detail && !names && !fields?.length ? ` ${sentenceOf(withoutNumbers(detail))}` : '';
  return {
    sentence: `${known.sentence}${shown}`,
    ...(known.next ? { next: known.next } : {}),
    ...(fields?.length ? { fields } : {}),
    ...(admin && detail && (names || !shown) ? { details: detail } : {}),
  };
}

function statusSlug(status: number): string {
  const byStatus: Record<number, string> = {
    400: 'bad-request', 401: 'unauthorized', 403: 'forbidden', 404: 'not-found', 409: 'conflict', 413: 'content-too-large',
    415: 'unsupported-media-type', 422: 'unprocessable-content', 429: 'too-many-requests', 502: 'bad-gateway', 503: 'service-unavailable', 504: 'gateway-timeout',
  };
  return byStatus[status] ?? (status >= 500 ? 'internal-server-error' : '');
}

/**
 * A reason the service recorded (an audit event's, a disconnect's), for whoever reads it: admins
 * read it as written; others without HTTP status numbers, and without it at all when it names a
 * service variable.
 */
export function reasonFor(reason: string, admin: boolean): string {
  if (admin) return reason;
  return VARIABLE.test(reason) ? 'see the service\'s operator for the details' : withoutNumbers(reason);
}

/** The service's detail as a sentence of its own, without HTTP status numbers. */
function withoutNumbers(detail: string): string {
  return detail.replace(/\s*\((?:HTTP )?\d{3}\)/g, '').replace(/\bthe server answered HTTP \d{3}\b/g, 'the server refused').replace(/\bHTTP \d{3}\b/g, 'an error');
}

function sentenceOf(text: string): string {
  const trimmed = text.replace(/[.\s]+$/, '');
  return `${trimmed.charAt(0).toUpperCase()}${trimmed.slice(1)}.`;
}

const LABELS: Record<string, string> = {
  url: 'MCP server URL', 'metadata.name': 'Name', 'metadata.description': 'Description', metadata: 'Name and description',
  client_id: 'Client id', client_secret: 'Client secret', access_token: 'Access token', redirect_url: 'Return address',
  name: 'Name', description: 'Description', members: 'Connectors', access: 'Access rules',
};

/** `members.1.prefix` → `Connector 2: prefix`. */
export function labelOf(path: string): string {
  if (LABELS[path]) return LABELS[path];
  const member = /^members\.(\d+)\.(.+)$/.exec(path);
  if (member) return `Connector ${Number(member[1]) + 1}: ${member[2]!.replace(/^tools\./, '').replace(/\.\d+$/, '')}`;
  const rule = /^access\.(\d+)\.(.+)$/.exec(path);
  if (rule) return `Access rule ${Number(rule[1]) + 1}: ${rule[2]!.replace(/\.\d+$/, '')}`;
  return path.replace(/[._]/g, ' ');
}

/** Schema messages (zod's and the service's own) in plain words. */
export function plainMessage(message: string): string {
  const rules: [RegExp, (m: RegExpExecArray) => string][] = [
    [/^URL scheme (\S+) is not supported/i, () => 'use an address that starts with https:// (or http://)'],
    [/^Too big: expected string to have <=\s*(\d+) characters/i, (m) => `is too long: at most ${m[1]} characters`],
    [/^Too big: expected array to have <=\s*(\d+) items/i, (m) => `has too many entries: at most ${m[1]}`],
    [/^Too small: expected (?:string|array) to have >=\s*1\b/i, () => 'is required'],
    [/^Too small: expected string to have >=\s*(\d+) characters/i, (m) => `is too short: at least ${m[1]} characters`],
    [/^Too small: expected array to have >=\s*(\d+) items/i, (m) => `needs at least ${m[1]} entries`],
    [/^Invalid input: expected \w+, received undefined/i, () => 'is required'],
    [/^Invalid input: expected (\w+)/i, (m) => `should be ${m[1] === 'string' ? 'text' : `a ${m[1]}`}`],
    [/^Invalid (?:string|format): must match pattern/i, () => 'has characters that are not allowed'],
    [/^Invalid URL/i, () => 'is not a valid address'],
    [/^Unrecognized key/i, () => 'is not something this form takes'],
  ];
  for (const [pattern, say] of rules) {
    const match = pattern.exec(message);
    if (match) return say(match);
  }
  return withoutNumbers(message);
}
