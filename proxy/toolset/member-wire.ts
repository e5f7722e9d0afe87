// What goes on the wire to a member besides the message: which member (its route), its 2025
// session, and the Streamable HTTP headers of each revision (SEP-2243's for 2026-07-28).
import type { IncomingHttpHeaders } from 'node:http';
import type { ConnectedRoute } from '../route';
import { NAME_FIELD } from '../rpc-headers';
import { MODERN_VERSION, paramsOf, type RpcMessage } from './rpc';

export interface MemberTarget {
  connectorId: string;
  route: ConnectedRoute;
}

/** A member's 2025 session: its id (null: a server that keeps none) and the revision it agreed. */
export interface MemberSession {
  sessionId: string | null;
  protocolVersion: string;
}

export const TOOLSET_CLIENT_INFO = { name: 'connector-registry-toolset', version: '1.0.0' };

export function legacyHeaders(session: MemberSession, extra: IncomingHttpHeaders = {}): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = { ...extra, accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': session.protocolVersion };
  if (session.sessionId !== null) headers['mcp-session-id'] = session.sessionId;
  return headers;
}

/** SEP-2243's headers for a 2026-07-28 request: the method, and what it names. */
export function modernHeaders(message: RpcMessage, extra: IncomingHttpHeaders = {}): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {
    ...extra, accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': MODERN_VERSION,
  };
  if (message.method) headers['mcp-method'] = message.method;
  const field = message.method === undefined ? undefined : NAME_FIELD.get(message.method);
  const named = field === undefined ? undefined : paramsOf(message)[field];
  if (typeof named === 'string') headers['mcp-name'] = headerValue(named);
  return headers;
}

/** A value as SEP-2243 carries it in a header: as is when it is plain visible ASCII, else `=?base64?…?=`. */
export function headerValue(value: string): string {
  const plain = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !(value.startsWith('=?base64?') && value.endsWith('?='));
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}
