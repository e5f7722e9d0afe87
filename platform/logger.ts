// One logger for every process. Secret-bearing fields are redacted by name as a second line of
// defence; the first is that code never logs a secret at all.
import pino from 'pino';
import pretty from 'pino-pretty';
import { displayUrl } from '../contract/display-url';

export const REDACTION_MARKER = '[redacted]';

/**
 * Field names whose value is a secret wherever they appear: tokens, client credentials, PKCE
 * verifiers, the gateway secret, API keys, the encryption key, the Temporal TLS key, the
 * credential headers, and `env` (a preset's stdio env holds the server's API keys). Bare `code`
 * and `state` are not here: they name error codes and connector states in most log lines; the
 * OAuth ones are covered by `query.code`/`query.state` and by masking URLs (below).
 */
export const SECRET_FIELDS = [
  'access_token', 'refresh_token', 'id_token', 'client_secret', 'code_verifier', 'registration_access_token',
  'accessToken', 'refreshToken', 'idToken', 'clientSecret', 'codeVerifier', 'token',
  'gatewaySecret', 'gateway_secret', 'GATEWAY_SECRET', 'secret',
  'apiKey', 'api_key', 'TEMPORAL_API_KEY', 'encryptionKey', 'CONNECTOR__ENCRYPTION_KEY', 'clientKey', 'password',
  'authorization', 'Authorization', 'proxy-authorization', 'cookie', 'Cookie', 'set-cookie', 'x-connector-gateway-secret', 'x-api-key',
  'authorizationUrl', 'authorization_url', 'env', 'OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
] as const;

/** Where an OAuth callback's code and state would be logged: the parsed query of a request. */
const CALLBACK_PATHS = ['query.code', 'query.state', '*.query.code', '*.query.state'];

/**
 * Fields holding a URL: kept as origin and path only (displayUrl), without user info (MONGODB_URI's
 * credentials), query or fragment (an OAuth callback's code and state, a connector's API key).
 */
const URL_FIELDS = [
  'url', 'uri', 'href', 'mongoUri', 'mongodb', 'MONGODB_URI',
  'serverUrl', 'serverUri', 'metadataUrl', 'resourceMetadataUrl', 'presetUrl', 'connectorUrl', 'upstreamUrl',
];

// Up to four levels deep (`req.headers.authorization`, `err.cause.headers.cookie`, an array of objects).
const DEPTHS = ['', '*', '*.*', '*.*.*'];

function pathsOf(field: string): string[] {
  const tail = /^[A-Za-z_$][\w$]*$/.test(field) ? field : `["${field}"]`;
  return DEPTHS.map((prefix) => (prefix === '' ? tail : tail.startsWith('[') ? `${prefix}${tail}` : `${prefix}.${tail}`));
}

export const REDACTED_PATHS = [...[...SECRET_FIELDS, ...URL_FIELDS].flatMap(pathsOf), ...CALLBACK_PATHS];

const URL_FIELD_SET = new Set<string>(URL_FIELDS);

function censor(value: unknown, path: string[]): unknown {
  if (!URL_FIELD_SET.has(String(path.at(-1)))) return REDACTION_MARKER;
  return typeof value === 'string' || value instanceof URL ? displayUrl(value) : value;
}

/**
 * A message or stack that may quote a URL: user info (a database's connection string) and query
 * (an OAuth callback's code, a connector's API key) are masked.
 */
export function withoutUrlSecrets(text: string | undefined): string | undefined {
  return text
    ?.replace(/([a-z][a-z\d+.-]*:\/\/)[^/?#@\s]*@/gi, `$1${REDACTION_MARKER}@`)
    .replace(/([a-z][a-z\d+.-]*:\/\/[^\s?#]*)\?[^\s#"']*/gi, `$1?${REDACTION_MARKER}`);
}

/**
 * An error under `err` or `error` (the Temporal SDK's key for a failed activity) is logged with
 * its type, message and stack: else only its enumerable fields show (a MongoDB driver's error
 * becomes `{"errorLabelSet":{}}`) and why an activity failed is lost.
 */
function serializeError(value: unknown): unknown {
  if (!(value instanceof Error)) return value;
  const serialized = pino.stdSerializers.err(value);
  // A Temporal failure's own `type` (UpstreamError...) says more than its class (ApplicationFailure).
  const own = (value as { type?: unknown }).type;
  return {
    ...serialized, type: typeof own === 'string' ? own : serialized.type,
    message: withoutUrlSecrets(serialized.message), stack: withoutUrlSecrets(serialized.stack),
  };
}

export type Logger = pino.Logger;

/** JSON for machines (the default everywhere); pretty for a person at a terminal. */
export type LogFormat = 'json' | 'pretty';

/**
 * The format of an entry point a person runs by hand (`npm start`): pretty on a terminal, JSON
 * when the output goes to a pipe or a file; LOG_FORMAT=json|pretty decides instead. The
 * production entry points never ask: their output is read by a log collector, so always JSON.
 */
export function interactiveLogFormat(env: NodeJS.ProcessEnv = process.env, stdoutIsTty = process.stdout.isTTY === true): LogFormat {
  if (env.LOG_FORMAT === 'json' || env.LOG_FORMAT === 'pretty') return env.LOG_FORMAT;
  return stdoutIsTty ? 'pretty' : 'json';
}

/**
 * `destination`: a file path to write to instead of standard output (tests scan it for secrets),
 * or a stream. `format`: JSON unless the entry point chose `interactiveLogFormat()`.
 */
export function createLogger(name: string, level = process.env.LOG_LEVEL ?? 'info', destination?: string | pino.DestinationStream, format: LogFormat = 'json'): Logger {
  const options = { name, level, redact: { paths: REDACTED_PATHS, censor }, serializers: { err: serializeError, error: serializeError } };
  const target = typeof destination === 'string' ? pino.destination({ dest: destination, sync: true, mkdir: true }) : destination;
  if (format === 'pretty') {
    // Synchronous, so that the last lines before process.exit (a fatal start-up error) are written.
    return pino(options, pretty({ destination: target ?? 1, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
  }
  return target ? pino(options, target) : pino(options);
}
