// What a caller is told when it calls a tool of a member that is not connected (decisions.md,
// "Toolsets"): JSON-RPC -32010 naming the member, its state, why it was disconnected and, when it
// waits for authorization, the URL to authorize it; or -32042 (URL elicitation required) with
// that URL, when the client declared URL-mode elicitation.
import { randomUUID } from 'node:crypto';
import { ProtocolError, UrlElicitationRequiredError } from '@modelcontextprotocol/server';
import type { ToolsetMember } from '../../contract/toolset-record';
import type { Route } from '../route';
import type { ToolsetSource } from './toolset-source';

/** A server-defined code: MCP's own -32002 means a missing resource. */
export const MEMBER_NOT_CONNECTED = -32010;

export async function memberUnavailableError(
  member: ToolsetMember, route: Exclude<Route, { kind: 'connected' }>, source: ToolsetSource, urlElicitation: boolean,
): Promise<ProtocolError> {
  const status = await source.memberStatus(member.connector_id).catch(() => null);
  const state = route.kind === 'not_found' ? 'deleted' : status?.state ?? route.state;
  const authorizationUrl = state === 'auth_required' ? status?.authorization_url ?? null : null;
  const what = `The toolset member ${member.prefix} (connector ${member.connector_id}) is ${state}`;
  if (authorizationUrl && urlElicitation) {
    return new UrlElicitationRequiredError([{
      mode: 'url', elicitationId: randomUUID(), url: authorizationUrl,
      message: `${what}: authorize it to call its tools.`,
    }], `${what}; authorization is required.`);
  }
  const data = {
    connector_id: member.connector_id, state, disconnect_reason: status?.disconnect_reason ?? null,
    ...(authorizationUrl ? { authorization_url: authorizationUrl } : {}),
  };
  return new ProtocolError(MEMBER_NOT_CONNECTED, authorizationUrl ? `${what}; authorize it at ${authorizationUrl}.` : `${what}, not connected.`, data);
}
