// The session ids the bridge gives its clients carry the client's `initialize` parameters, so that
// whichever proxy replica a request reaches can open an upstream SSE session of its own for that
// client, initialized as the client asked, with no shared store. Nothing in them is secret or
// trusted: the client could send the same parameters in an initialize of its own. Which upstream
// session serves a request is decided by the id together with the caller (sse-bridge.ts), so an
// id taken from another caller opens a session of the taker's, never reaches the other's.
import { randomBytes } from 'node:crypto';

/** What the client's initialize asked for, as sent again upstream. */
export interface InitializeParams {
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  clientInfo: { name: string; version: string; [key: string]: unknown };
}

const PREFIX = 'sse1.';
/** Session ids go in a header on every request: the parameters are cut down to fit. */
const MAX_ID_LENGTH = 4096;

export function sessionIdOf(params: InitializeParams): string {
  const nonce = randomBytes(16).toString('base64url');
  const whole = `${PREFIX}${nonce}.${Buffer.from(JSON.stringify(params)).toString('base64url')}`;
  if (whole.length <= MAX_ID_LENGTH) return whole;
  const { name, version } = params.clientInfo;
  const slim = { protocolVersion: params.protocolVersion, capabilities: {}, clientInfo: { name: String(name).slice(0, 128), version: String(version).slice(0, 64) } };
  return `${PREFIX}${nonce}.${Buffer.from(JSON.stringify(slim)).toString('base64url')}`;
}

/** The parameters a session id carries, or null when it is not one of the bridge's. */
export function paramsOf(sessionId: string): InitializeParams | null {
  if (!sessionId.startsWith(PREFIX) || sessionId.length > MAX_ID_LENGTH) return null;
  const encoded = sessionId.slice(sessionId.indexOf('.', PREFIX.length) + 1);
  try {
    const params = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as Partial<InitializeParams>;
    return isInitializeParams(params) ? params : null;
  } catch {
    return null;
  }
}

export function isInitializeParams(value: unknown): value is InitializeParams {
  const v = value as Partial<InitializeParams> | null;
  return typeof v === 'object' && v !== null && typeof v.protocolVersion === 'string'
    && typeof v.capabilities === 'object' && v.capabilities !== null && !Array.isArray(v.capabilities)
    && typeof v.clientInfo?.name === 'string' && typeof v.clientInfo?.version === 'string';
}
