// The connector's state as plain JSON (it crosses continue-as-new) and the one way to change it:
// `apply`, which asks the state machine and produces the audit event that goes with it.
import type { AuditEvent, AuthKind, ConnectorRecord } from '../contract/connector-record';
import { authorizationUrlOf } from '../contract/authorization-url';
import { keepsAuthorizationRequest, transition, type ConnectorEvent, type ConnectorState } from '../contract/connector-states';
import { isStdioUrl } from '../contract/connector-url';
import type { Ciphertext } from '../contract/ciphertext';
import type { SealedHeader, UpstreamBinding } from '../contract/upstream-inputs';
import type { CallbackOutcome, ConnectorInit, RouteView } from './messages';
import type { ApprovalRule } from '../contract/approvals';
import type { OAuthContext, OAuthState, SealedTokens } from '../activities/oauth/oauth-state';

/** The key a token is bound to (DPoP), sealed; null for a Bearer token. */
export function boundKey(context: OAuthContext, tokens: Pick<SealedTokens, 'dpop'>): Ciphertext | null {
  return tokens.dpop ? context.dpopKey ?? null : null;
}

export interface ConnectorData {
  init: ConnectorInit;
  state: ConnectorState;
  /** Number of transitions so far: the audit sequence and the projection's version. */
  seq: number;
  createdAt: string;
  updatedAt: string;
  disconnectReason: string | null;
  disconnectPermanent: boolean | null;
  authRequest: ConnectorRecord['auth_request'];
  secrets: { accessToken: Ciphertext | null };
  oauth: OAuthState;
  /** A managed stdio workload serving this connector, while connected, with its gateway's secret (sealed). */
  workload: { target: string; gatewaySecret: Ciphertext } | null;
  /** The MCP revision negotiated at the last successful connect. */
  protocolVersion: string | null;
  /** What the last connect bound for the upstream (absent in state from before it existed). */
  binding?: UpstreamBinding | null;
  /** How the last successful connect authenticates (absent in state from before it existed). */
  authKind?: AuthKind | null;
  /** The owner's approval rules, as last set (absent: those given at creation, if any). */
  approvalRules?: ApprovalRule[];
  /**
   * The last authorization callback this connector took and what it answered: the API sends a
   * callback again when its first call ended without an answer, and gets this one, in this run or
   * the next (absent in state from before it existed).
   */
  lastCallback?: { stateHash: string; outcome: CallbackOutcome } | null;
}

export interface ApplyOptions {
  actor: string;
  reason?: string;
  permanent?: boolean;
  /** The MCP revision the connect that led here negotiated: kept on the record, and named in the audit event. */
  protocolVersion?: string | null;
  /** How the connect that led here authenticates: kept on the record, and named in the audit event. */
  authKind?: AuthKind;
}

export class InvalidTransition extends Error {}

export class ConnectorEntity {
  constructor(public data: ConnectorData) {}

  static create(init: ConnectorInit, now: string): { entity: ConnectorEntity; event: AuditEvent } {
    const entity = new ConnectorEntity({
      init, state: 'created', seq: 1, createdAt: now, updatedAt: now,
      disconnectReason: null, disconnectPermanent: null, authRequest: null, secrets: { accessToken: null },
      oauth: { pending: null, session: null, stepUpScopes: [], challenge: null, boundIssuer: null, grantedScopes: [] },
      workload: null, protocolVersion: null,
    });
    const event: AuditEvent = {
      connectorId: init.id, seq: 1, time: now, actor: init.createdBy ?? 'api', from: null, to: 'created', reason: 'created',
    };
    return { entity, event };
  }

  get state(): ConnectorState {
    return this.data.state;
  }

  /** Where the upstream is reached: the URL with the connect's variables bound, else the connector's URL. */
  get upstreamUrl(): string {
    return this.data.binding?.url ?? this.data.init.url;
  }

  /** The connect's headers for the upstream, sealed. */
  get upstreamHeaders(): SealedHeader[] {
    return this.data.binding?.headers ?? [];
  }

  /** What the probes need to speak to the upstream: its transport, when not Streamable HTTP. */
  get upstreamTransport(): { transport?: 'sse' } {
    return this.data.init.transport ? { transport: this.data.init.transport } : {};
  }

  /** The connector's own approval rules. */
  get approvalRules(): ApprovalRule[] {
    return this.data.approvalRules ?? this.data.init.approvalRules ?? [];
  }

  /**
   * Replaces the owner's approval rules. Not a transition, but on record like one: the version
   * moves on (so the projection is written and every proxy hears of it) and the audit trail says who.
   */
  setApprovalRules(rules: ApprovalRule[], now: string, actor: string): AuditEvent {
    const d = this.data;
    d.approvalRules = rules;
    d.seq += 1;
    d.updatedAt = now;
    const reason = rules.length ? `approval rules set (${rules.length})` : 'approval rules removed';
    return { connectorId: d.init.id, seq: d.seq, time: now, actor, from: d.state, to: d.state, reason };
  }

  /** A managed stdio connector. */
  get runsWorkload(): boolean {
    return isStdioUrl(this.data.init.url);
  }

  /** Moves to the state that follows `event`; throws InvalidTransition when the machine refuses. */
  apply(event: ConnectorEvent, now: string, options: ApplyOptions): AuditEvent {
    const t = transition(this.data.state, event);
    if (!t.ok) throw new InvalidTransition(t.reason);
    const d = this.data;
    d.seq += 1;
    d.updatedAt = now;
    d.state = t.to;
    if (t.to === 'disconnected') {
      d.disconnectReason = options.reason ?? 'disconnected';
      d.disconnectPermanent = options.permanent ?? true;
    } else {
      d.disconnectReason = null;
      d.disconnectPermanent = null;
    }
    if (!keepsAuthorizationRequest(event, t.to)) {
      d.authRequest = null;
      d.oauth.pending = null;
    }
    if (options.protocolVersion !== undefined) d.protocolVersion = options.protocolVersion;
    if (options.authKind) d.authKind = options.authKind;
    if (t.to !== 'connected') d.workload = null;
    else d.oauth.challenge = null; // whatever the server asked for, it now has
    if (t.to === 'disconnected' || t.to === 'deleting') {
      d.secrets.accessToken = null;
      // A transient loss keeps the grant so that the service can reconnect by itself.
      if (options.permanent !== false) {
        d.oauth.session = null;
        d.binding = null; // its headers are credentials too
        d.authKind = null;
      }
    }
    return {
      connectorId: d.init.id, seq: d.seq, time: now, actor: options.actor,
      from: t.from, to: t.to, reason: options.reason ?? event,
      ...(options.protocolVersion ? { protocol_version: options.protocolVersion } : {}),
      ...(options.authKind ? { auth_kind: options.authKind } : {}),
    };
  }

  record(): ConnectorRecord {
    const d = this.data;
    return {
      id: d.init.id,
      url: d.init.url,
      state: d.state,
      metadata: d.init.metadata,
      auth_request: d.authRequest,
      disconnect_reason: d.disconnectReason,
      disconnect_permanent: d.disconnectPermanent,
      preset: d.init.preset,
      created_at: d.createdAt,
      updated_at: d.updatedAt,
      created_by: d.init.createdBy,
      created_by_name: d.init.createdByName,
      protocol_version: d.protocolVersion,
      ...(d.init.transport ? { transport: d.init.transport } : {}),
      ...this.authKindField(),
      ...(d.oauth.session?.dpop ? { token_binding: 'dpop' as const } : {}),
      ...(d.binding?.headers.length ? { headers: d.binding.headers.map((h) => h.name) } : {}),
      ...(d.binding && Object.keys(d.binding.variables).length ? { variables: { ...d.binding.variables } } : {}),
      ...(this.approvalRules.length ? { approval_rules: this.approvalRules } : {}),
      version: d.seq,
    };
  }

  /** State from before authKind existed shows what its grant says, as it did then. */
  private authKindField(): { auth_kind?: AuthKind } {
    const kind = this.data.authKind === undefined ? this.data.oauth.session?.context.grant : this.data.authKind;
    return kind ? { auth_kind: kind } : {};
  }

  route(): RouteView {
    const connected = this.data.state === 'connected';
    return {
      state: this.data.state,
      owner: this.data.init.createdBy,
      target: connected ? (this.data.workload?.target ?? this.upstreamUrl) : null,
      token: connected ? this.data.secrets.accessToken : null,
      dpopKey: connected && this.data.secrets.accessToken && this.data.oauth.session ? boundKey(this.data.oauth.session.context, this.data.oauth.session) : null,
      gatewaySecret: connected ? (this.data.workload?.gatewaySecret ?? null) : null,
      managed: connected && this.data.workload !== null,
      ...this.upstreamTransport,
      ...(connected && this.upstreamHeaders.length ? { headers: this.upstreamHeaders } : {}),
      // auth_required, or connected with a step-up on offer: where the user authorizes
      authorizationUrl: authorizationUrlOf(this.data.authRequest),
      ...(this.data.authRequest?.type === 'assertion' ? { needs: this.data.authRequest.needs } : {}),
      ...(this.approvalRules.length ? { approvalRules: this.approvalRules } : {}),
    };
  }
}
