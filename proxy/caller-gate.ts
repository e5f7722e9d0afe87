// Who may use a connector's MCP path: the caller's credential is checked (and consumed: it is
// never forwarded), another owner's connector answers 404 as if it did not exist, and an owner's
// request rate (CONNECTOR__RATE_LIMIT_PER_OWNER) and concurrent requests and streams
// (CONNECTOR__MAX_STREAMS_PER_OWNER) are capped.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { IdentityProviderUnavailable, OPEN_CALLER, Unauthenticated, mayAccess, type Caller } from '../callers/caller';
import { authorizationOf, type Authenticator } from '../callers/authenticator';
import type { OwnerRateLimit } from '../callers/owner-rate-limit';
import { ProblemError } from '../contract/problem';
import { OpenExchanges } from './open-exchanges';
import type { Route } from './route';

export interface CallerGateOptions {
  authenticator: Authenticator;
  baseUrl: string;
  maxStreamsPerOwner: number;
  /** Null or absent: no rate limit (callers off, or CONNECTOR__RATE_LIMIT_PER_OWNER=off). */
  rateLimit?: OwnerRateLimit | null;
  /** The scopes a client signing in should ask for, named in the challenge (CONNECTOR__AUTH_SCOPES); absent: none named. */
  scopes?: readonly string[];
}

/** The two kinds of MCP path: a connector's and a toolset's. */
export type McpCollection = 'connectors' | 'toolsets';

export class GateRefusal extends Error {
  constructor(readonly problem: ProblemError, readonly headers: OutgoingHttpHeaders = {}) {
    super(problem.detail);
  }
}

export class CallerGate {
  private readonly open: OpenExchanges;

  constructor(private readonly options: CallerGateOptions) {
    this.open = new OpenExchanges(options.maxStreamsPerOwner);
  }

  get enabled(): boolean {
    return this.options.authenticator.enabled;
  }

  /** The caller when the credential is known without waiting (see Authenticator.known), else null: ask `admit`. */
  /** `collection`: whose MCP path this is (a toolset's is a resource of its own, with its own URL). */
  known(req: IncomingMessage, connectorId: string, collection: McpCollection = 'connectors'): Caller | null {
    if (!this.enabled) return OPEN_CALLER;
    let authorization: string | undefined;
    try {
      authorization = authorizationOf(req.rawHeaders);
    } catch {
      return null; // admit gives the refusal
    }
    return this.options.authenticator.known(authorization, [this.mcpUrl(collection, connectorId)]);
  }

  /** The caller; a GateRefusal (401 with the RFC 9728 challenge, or 503) otherwise. */
  async admit(req: IncomingMessage, connectorId: string, collection: McpCollection = 'connectors'): Promise<Caller> {
    if (!this.enabled) return OPEN_CALLER;
    try {
      // A token minted for this connector's MCP URL (RFC 8707 resource) is accepted here.
      return await this.options.authenticator.authenticate(authorizationOf(req.rawHeaders), [this.mcpUrl(collection, connectorId)]);
    } catch (err) {
      if (err instanceof Unauthenticated) {
        const metadata = `${this.options.baseUrl}/.well-known/oauth-protected-resource/api/v1/${collection}/${connectorId}/mcp`;
        const error = err.given ? 'error="invalid_token", ' : '';
        // RFC 6750 section 3 / MCP authorization: the scope named here is what a client asks for
        // when it signs in (without one, some clients register and authorize with an empty scope).
        const scope = this.options.scopes?.length ? `, scope="${this.options.scopes.join(' ')}"` : '';
        throw new GateRefusal(new ProblemError(401, err.message), { 'www-authenticate': `Bearer ${error}resource_metadata="${metadata}"${scope}` });
      }
      if (err instanceof IdentityProviderUnavailable) {
        throw new GateRefusal(new ProblemError(503, 'The identity provider cannot be reached; try again.'), { 'retry-after': '1' });
      }
      throw err;
    }
  }

  private mcpUrl(collection: McpCollection, id: string): string {
    return `${this.options.baseUrl}/api/v1/${collection}/${id}/mcp`;
  }

  /**
   * Whether the caller may see this connector at all (a not-found route is nobody's). Asked once
   * for every request the proxy admits, whoever's connector it names, so the owner's request rate
   * is counted here (a GateRefusal past it): counted only for its own connectors, a 429 would tell
   * another owner's existing connector (404) from an id that exists nowhere (429).
   */
  sees(caller: Caller, route: Route): boolean {
    this.countRate(caller);
    if (route.kind === 'not_found') return true;
    return mayAccess(caller, route.owner ?? null);
  }

  /** Counts one request against the owner's rate (a toolset's MCP path, which decides visibility itself). */
  countRequest(caller: Caller): void {
    this.countRate(caller);
  }

  private countRate(caller: Caller): void {
    const limited = caller.subject === null ? null : this.options.rateLimit?.take(caller.subject);
    if (!limited) return;
    const detail = 'This owner sends more MCP requests than it may (CONNECTOR__RATE_LIMIT_PER_OWNER); try again after Retry-After.';
    throw new GateRefusal(new ProblemError(429, detail, 'rate-limited'), limited.headers);
  }

  /** Counts the exchange against the owner's streams until the response closes; 429 past the cap. */
  hold(caller: Caller, res: ServerResponse): void {
    const owner = caller.subject;
    if (owner === null || this.open.take(owner, res)) return;
    const detail = `This owner already has ${this.open.count(owner)} MCP requests or streams open, the most allowed.`;
    throw new GateRefusal(new ProblemError(429, detail, 'quota-exceeded'), { 'retry-after': '1' });
  }
}
