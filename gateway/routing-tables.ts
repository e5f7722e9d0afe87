// Who is waiting for what. Two id spaces meet at the gateway: requests from sessions to the server
// get ids of the one upstream sequence (clients all start at 0, so their ids collide), and
// requests from the server to a session get gateway ids, mapped back when the session answers.
import type { JSONRPCResponse, ProgressToken, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { idKey } from './jsonrpc';
import type { GatewaySession } from './session';

/** A session's request, sent on to the server under `upstreamId`. */
export interface ForwardedRequest {
  session: GatewaySession;
  clientId: RequestId;
  upstreamId: number;
  method: string;
  /** The `uri` param, kept for resources/subscribe bookkeeping. */
  uri?: string;
  /** The client's own token; upstream the request carries `upstreamId` as its token. */
  clientProgressToken?: ProgressToken;
  /** The params as sent upstream, kept to send the request again with inputs (input-required.ts). */
  params?: Record<string, unknown>;
  /** How many times it was sent again with inputs. */
  rounds?: number;
}

/** A server's request, relayed to `session` under `gatewayId`. */
export interface RelayedRequest {
  session: GatewaySession;
  gatewayId: string;
  upstreamId: RequestId;
  method: string;
  /** The session request whose stream carried it, if any (its cancellation goes there too). */
  relatedRequestId?: RequestId;
  /** Set when the gateway itself asked (input-required.ts): the answer goes here, not upstream. */
  onanswer?: (answer: JSONRPCResponse) => void;
}

export class RoutingTables {
  private readonly forwarded = new Map<number, ForwardedRequest>();
  private readonly relayed = new Map<string, RelayedRequest>();
  private readonly relayedByUpstream = new Map<string, string>();
  private lastRelayId = 0;

  forward(request: ForwardedRequest): void {
    this.forwarded.set(request.upstreamId, request);
    request.session.addInflight({ clientId: request.clientId, upstreamId: request.upstreamId });
  }

  forwardedTo(upstreamId: RequestId): ForwardedRequest | undefined {
    return typeof upstreamId === 'number' ? this.forwarded.get(upstreamId) : undefined;
  }

  /** Removes the request (answered, cancelled or abandoned) from the table and its session. */
  takeForwarded(upstreamId: RequestId): ForwardedRequest | undefined {
    const request = this.forwardedTo(upstreamId);
    if (!request) return undefined;
    this.forwarded.delete(request.upstreamId);
    request.session.takeInflight(request.clientId);
    return request;
  }

  relay(request: Omit<RelayedRequest, 'gatewayId'>): RelayedRequest {
    this.lastRelayId += 1;
    const relayed = { ...request, gatewayId: `gateway-${this.lastRelayId}` };
    this.relayed.set(relayed.gatewayId, relayed);
    this.relayedByUpstream.set(idKey(relayed.upstreamId), relayed.gatewayId);
    return relayed;
  }

  relayedAs(gatewayId: RequestId): RelayedRequest | undefined {
    return typeof gatewayId === 'string' ? this.relayed.get(gatewayId) : undefined;
  }

  takeRelayed(gatewayId: RequestId): RelayedRequest | undefined {
    const relayed = this.relayedAs(gatewayId);
    if (!relayed) return undefined;
    this.relayed.delete(relayed.gatewayId);
    this.relayedByUpstream.delete(idKey(relayed.upstreamId));
    return relayed;
  }

  takeRelayedByUpstreamId(upstreamId: RequestId): RelayedRequest | undefined {
    const gatewayId = this.relayedByUpstream.get(idKey(upstreamId));
    return gatewayId === undefined ? undefined : this.takeRelayed(gatewayId);
  }

  relayedTo(session: GatewaySession): RelayedRequest[] {
    return [...this.relayed.values()].filter((r) => r.session === session);
  }
}
