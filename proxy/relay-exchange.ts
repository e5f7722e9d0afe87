// One relayed request: its timers, its upstream request once http-proxy has made it, and what
// happens when either side goes away. The rule that matters: when the client's response closes
// before it finished, the upstream request is destroyed here, so an abandoned SSE stream frees
// its upstream connection (and the MCP server its stream) at once.
//
// A request that carried a token the registry can refresh may be sent twice: when the upstream
// answers 401, its answer is held (unread) while the token is refreshed, then dropped and the
// request sent again, once, with the new token and the body as the caller sent it (a copy kept
// by BodyRecorder). When no new token comes (the connector cannot refresh, the grant is gone,
// the refresh timed out), or the retry is refused too, or the request carried no token at all,
// the 401 is not relayed: it is reported to the registry as a refusal (which asks the user to
// authorize anew: auth_required with a fresh authorization URL). A 403 insufficient_scope to the
// connector's token is not relayed either: the registry offers a step-up authorization, the
// connector staying connected. Both are answered with the authorization URL: JSON-RPC -32042 to
// a client that declared URL-mode elicitation, else the service's problem (url-elicitation.ts).
// A body too large to keep is not sent twice: the caller is asked to
// send it again once the token is renewed. Responses are never buffered: whatever is relayed
// is piped as it arrives.
import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Logger } from '../platform/logger';
import { BodyRecorder } from './body-recorder';
import type { CallObserver } from './call-observer';
import { clientResponseHeaders } from './forward-headers';
import { ProblemError } from '../contract/problem';
import { refusalProblem, rpcRequestOf, sendMcpProblem, stepUpProblem, unreadRpcRequest, type RpcRequest } from './problem-response';
import { elicitationFacts, sendUrlElicitation, type ElicitingSessions } from './url-elicitation';
import type { ConnectedRoute } from './route';
import type { RefreshableRoute, UpstreamAuth } from './upstream-auth';
import { UpstreamTimeoutError, errorCode, problemForUpstreamError } from './upstream-errors';
import type { UpstreamTarget } from './upstream-target';
import type { UpstreamDpop } from './upstream-dpop';

export interface ExchangeOptions {
  connectorId: string;
  route: ConnectedRoute;
  target: UpstreamTarget;
  req: IncomingMessage;
  res: ServerResponse;
  logger: Logger;
  timeouts: { connectMs: number; headersMs: number };
  auth: UpstreamAuth;
  /** Proofs for a connector whose token is DPoP-bound, and the upstreams' nonces. */
  dpop: UpstreamDpop;
  /** Largest request body kept for a retry. */
  retryBodyLimit: number;
  /** Sends the request upstream (http-proxy); `body`, read before or kept for a retry, replaces the caller's stream. */
  dispatch(exchange: RelayExchange, body: Buffer | undefined, onError: (err: Error) => void): void;
  /** Every upstream 401; `refreshing` says whether a refresh will follow. */
  onUnauthorized(connectorId: string, refreshing: boolean): void;
  /** Watches both bodies for the metrics and the audit. */
  observer?: CallObserver;
  /** The body's length as declared upstream; null: chunked; undefined: no body (GET, DELETE). */
  bodyLength: number | null | undefined;
  /** The whole body, when it was read before relaying (rpc-headers.ts); else it is streamed. */
  body?: Buffer;
  /** The sessions whose clients declared URL-mode elicitation (absent: every answer is a problem). */
  elicitation?: ElicitingSessions;
}

// The exchange rides on its response: one 'close' listener shared by all, no closure per request.
const EXCHANGE = Symbol('relay-exchange');
type WithExchange = ServerResponse & { [EXCHANGE]?: RelayExchange };
function onResponseClose(this: WithExchange): void {
  this[EXCHANGE]?.onClientClose();
}

export class RelayExchange {
  private upstreamReq?: ClientRequest;
  private headersTimer?: NodeJS.Timeout;
  private connectTimer?: NodeJS.Timeout;
  private clientGone = false;
  /** A response, the upstream's or a problem of ours, has begun. */
  private answered = false;
  private attempts = 0;
  /** The request went again with the nonce its upstream asked for (RFC 9449 section 9): once at most. */
  private nonceRetried = false;
  /** A 401 is held while the token is refreshed: the attempt that got it can no longer fail. */
  private holding = false;
  private route: ConnectedRoute;
  /** Kept only when a refresh, and so a retry, is possible. */
  private body?: Pick<BodyRecorder, 'whole'>;
  private length: number | null | undefined;

  constructor(private readonly o: ExchangeOptions) {
    this.route = o.route;
    this.length = o.bodyLength;
    (o.res as WithExchange)[EXCHANGE] = this;
    o.res.on('close', onResponseClose);
  }

  get connectorId(): string {
    return this.o.connectorId;
  }

  get target(): UpstreamTarget {
    return this.o.target;
  }

  /** The route of the attempt under way (a retry's carries the renewed token). */
  get currentRoute(): ConnectedRoute {
    return this.route;
  }

  /** The length the attempt under way declares upstream (see ExchangeOptions.bodyLength). */
  get bodyLength(): number | null | undefined {
    return this.length;
  }

  get req(): IncomingMessage {
    return this.o.req;
  }

  get res(): ServerResponse {
    return this.o.res;
  }

  start(): void {
    const read = this.o.body;
    if (read) {
      this.send(read);
      if (this.keepsBody()) this.body = { whole: () => Promise.resolve(read) };
      return;
    }
    this.send(undefined);
    // After dispatch: http-proxy has piped the request, so the copy misses no chunk.
    this.o.observer?.watchRequest(this.o.req);
    if (this.keepsBody()) this.body = new BodyRecorder(this.o.req, this.o.retryBodyLimit);
  }

  /**
   * A copy of the body is kept for a retry after a refresh, and to answer a POST to a remote
   * server that may ask for authorization with the request's own JSON-RPC id (and to read an
   * initialize's capabilities). A managed workload's gateway never asks.
   */
  private keepsBody(): boolean {
    return this.o.auth.canRefresh(this.route) || this.route.dpop !== undefined || (this.o.req.method === 'POST' && !this.route.managed && this.o.elicitation !== undefined);
  }

  /** http-proxy made the upstream request and it has a socket (fresh or from the pool). */
  onUpstreamRequest(proxyReq: ClientRequest): void {
    this.upstreamReq = proxyReq;
    if (this.clientGone || this.answered) {
      proxyReq.destroy();
      return;
    }
    const socket = proxyReq.socket;
    if (socket?.connecting) {
      const ms = this.o.timeouts.connectMs;
      this.connectTimer = setTimeout(() => proxyReq.destroy(new UpstreamTimeoutError('connect', ms)), ms);
      socket.once('connect', () => clearTimeout(this.connectTimer));
    }
  }

  onUpstreamResponse(proxyRes: IncomingMessage): void {
    this.clearTimers();
    if (this.clientGone || this.answered) {
      proxyRes.destroy();
      return;
    }
    const status = proxyRes.statusCode ?? 502;
    const asksForNonce = this.o.dpop.noteAnswer(this.route, this.o.target.origin, status, proxyRes.headers);
    if (asksForNonce && !this.nonceRetried && this.body) {
      return void this.retryWithNonce(proxyRes, this.body).catch((err: Error) => this.onError(err));
    }
    if (status === 401 || status === 403) {
      const challenge = proxyRes.headers['www-authenticate'];
      const firstTry = this.attempts - (this.nonceRetried ? 1 : 0) === 1;
      const verdict = this.o.auth.verdict(this.route, status, challenge, firstTry && this.body !== undefined);
      if (status === 401) this.o.onUnauthorized(this.o.connectorId, verdict.kind === 'refresh');
      if (verdict.kind === 'refresh') return void this.refreshAndRetry(proxyRes, verdict.route, this.body!).catch((err: Error) => this.onError(err));
      if (verdict.kind === 'step-up') return this.stepUp(proxyRes, verdict.scope, challenge);
      if (verdict.kind === 'refuse') return this.refuse(proxyRes, verdict.status);
    }
    if (this.o.elicitation && proxyRes.headers['mcp-session-id']) this.noteSession(String(proxyRes.headers['mcp-session-id']));
    this.relay(proxyRes);
  }

  /** A new session (2025 era): remembered when its initialize declared URL-mode elicitation. */
  private noteSession(sessionId: string): void {
    if (this.o.req.headers['mcp-session-id'] || !this.body) return;
    void this.body.whole().then((bytes) => {
      const facts = elicitationFacts(bytes);
      if (facts.method === 'initialize' && facts.declares) this.o.elicitation!.remember(this.o.connectorId, sessionId);
    }, () => undefined);
  }

  /** A 403 asking the connector's token for more scope: answered with the step-up URL the registry offers. */
  private stepUp(upstreamAnswer: IncomingMessage, scope: string, challenge: string | undefined): void {
    this.dropAttempt(upstreamAnswer);
    if (!this.o.req.readableEnded) this.o.req.resume();
    this.holding = true;
    void this.o.auth.stepUp(this.o.connectorId, this.route, challenge).then(async (answer) => {
      const url = answer?.authorizationUrl ?? null;
      const reason = answer ? answer.reason : 'the connector registry could not be told';
      await this.answerAuthorization(url, `The MCP server needs more scope for this request (${scope}); open the URL to grant it, then try again.`,
        // The token was replaced meanwhile (a step-up just granted): the request is worth sending again.
        () => answer?.stale ? refusalProblem({ ...this.route, sealedToken: undefined }, 403) : { problem: stepUpProblem(scope, url, reason), headers: {} });
    });
  }

  /**
   * The answer to a request that met an authorization: -32042 with `url` to a client that
   * declared URL-mode elicitation (and a request with an id), else the problem `otherwise` makes.
   */
  private async answerAuthorization(url: string | null, message: string, otherwise: () => ReturnType<typeof refusalProblem>): Promise<void> {
    const facts = url && this.body ? elicitationFacts(await this.body.whole().catch(() => null)) : null;
    this.holding = false;
    if (this.clientGone) return;
    this.answered = true;
    const declared = facts?.declares || this.o.elicitation?.has(this.o.connectorId, this.o.req.headers['mcp-session-id']);
    if (url && facts && facts.id !== null && declared) return sendUrlElicitation(this.o.res, facts.id, url, message);
    const { problem, headers } = otherwise();
    void this.answerProblem(problem, headers);
  }

  /**
   * The service's own answer: a JSON-RPC error to a JSON-RPC request (its id read from the body
   * when a copy was kept), else problem details. The caller's headers were replaced by the
   * upstream's, which keep its Content-Type.
   */
  private async answerProblem(problem: ProblemError, headers: OutgoingHttpHeaders = {}): Promise<void> {
    const unread = unreadRpcRequest(this.o.req);
    const bytes = unread && (this.o.body ?? (await this.body?.whole().catch(() => null)));
    const rpc: RpcRequest | null = bytes ? rpcRequestOf(bytes) : unread;
    sendMcpProblem(this.o.res, problem, headers, rpc);
  }

  /** Stops relaying the caller's body and drops the upstream's answer, keeping its socket when it can. */
  private dropAttempt(upstreamAnswer: IncomingMessage): void {
    const attempt = this.upstreamReq;
    // The attempt is over, and its upstream may never read the rest of the body: the caller's
    // stream must not wait on it.
    if (attempt && !this.o.req.readableEnded) this.o.req.unpipe(attempt);
    upstreamAnswer.on('error', () => undefined);
    if (attempt && !attempt.writableFinished) attempt.destroy(); // its socket cannot be reused
    else upstreamAnswer.resume(); // read it off so its socket goes back to the pool
  }

  /** A refusal no refresh mends: reported to the registry, answered with the service's problem. */
  private refuse(upstreamAnswer: IncomingMessage, status: 401 | 403): void {
    this.dropAttempt(upstreamAnswer);
    if (!this.o.req.readableEnded) this.o.req.resume();
    this.holding = true;
    const challenge = upstreamAnswer.headers['www-authenticate'];
    void this.o.auth.refused(this.o.connectorId, this.route, status, challenge).then((route) => {
      const url = route?.kind === 'not_connected' ? route.authorizationUrl ?? null : null;
      const message = 'The MCP server asks for the connector to be authorized again; open the URL to authorize it, then try again.';
      return this.answerAuthorization(url, message, () => refusalProblem(route, status));
    });
  }

  private async refreshAndRetry(refused: IncomingMessage, used: RefreshableRoute, body: Pick<BodyRecorder, 'whole'>): Promise<void> {
    // The caller's stream must not wait on an upstream that may never read the rest of the
    // body: the copy needs every byte.
    if (this.upstreamReq && !this.o.req.readableEnded) this.o.req.unpipe(this.upstreamReq);
    this.holding = true;
    const [fresh, bytes] = await Promise.all([this.o.auth.refresh(this.o.connectorId, used), body.whole()]);
    this.holding = false;
    if (this.clientGone) return void refused.destroy();
    if (!fresh) return this.refuse(refused, 401);
    this.dropAttempt(refused);
    if (!bytes) return this.askToResend();
    this.route = fresh;
    this.resend(bytes);
  }

  /** The upstream asked for its DPoP nonce, which it gave with the 401: the same request, with a proof that carries it. */
  private async retryWithNonce(refused: IncomingMessage, body: Pick<BodyRecorder, 'whole'>): Promise<void> {
    if (this.upstreamReq && !this.o.req.readableEnded) this.o.req.unpipe(this.upstreamReq);
    this.nonceRetried = true;
    this.holding = true;
    const bytes = await body.whole();
    this.holding = false;
    if (this.clientGone) return void refused.destroy();
    this.dropAttempt(refused);
    if (!bytes) return this.askToResend();
    this.resend(bytes);
  }

  /** Another attempt with the current route's credentials (a fresh proof for a DPoP-bound token) and the kept body. */
  private resend(bytes: Buffer): void {
    const headers = this.o.req.headers;
    const proof = this.o.dpop.proof(this.route, this.o.req.method!, this.o.target);
    headers.authorization = `${proof ? 'DPoP' : 'Bearer'} ${this.route.token}`;
    if (proof) headers.dpop = proof;
    else delete headers.dpop;
    if (this.length !== undefined) {
      // The whole body is known now: declared, even if the caller sent it chunked.
      this.length = bytes.length;
      headers['content-length'] = String(bytes.length);
    }
    this.send(bytes);
  }

  /** The token was renewed, but the body was too large to keep for a second attempt. */
  private askToResend(): void {
    if (!this.o.req.readableEnded) this.o.req.resume(); // a body not kept drains to nowhere
    this.answered = true;
    const detail = "The connector's token was renewed while the request was under way; send it again.";
    void this.answerProblem(new ProblemError(503, detail, 'credentials-changed'), { 'retry-after': '0' });
  }

  private send(body: Buffer | undefined): void {
    const attempt = ++this.attempts;
    this.upstreamReq = undefined;
    this.headersTimer = setTimeout(() => this.onHeadersTimeout(), this.o.timeouts.headersMs);
    // Errors of an attempt whose answer is held or was dropped (its socket, cut off) are not
    // the exchange's: only the attempt whose answer is relayed can fail it.
    this.o.dispatch(this, body, (err) => {
      if (attempt === this.attempts && !this.holding) this.onError(err);
    });
  }

  private relay(proxyRes: IncomingMessage): void {
    const { res } = this.o;
    this.answered = true;
    res.writeHead(proxyRes.statusCode ?? 502, clientResponseHeaders(proxyRes.headers));
    if (String(proxyRes.headers['content-type']).startsWith('text/event-stream')) flushIfQuiet(proxyRes, res);
    // Plain pipe rather than stream.pipeline: pipeline allocates an AbortController and an
    // AbortError per call, a measurable share of the proxy's cost per request.
    (proxyRes as Relayed)[CLIENT] = res;
    proxyRes.on('error', onAnswerError);
    proxyRes.on('close', onAnswerClose);
    proxyRes.pipe(res);
    this.o.observer?.watchAnswer(proxyRes);
  }

  /** Errors of the upstream request or of the client's request, as http-proxy reports them. */
  onError(err: Error): void {
    this.clearTimers();
    if (this.clientGone) return;
    if (this.answered) {
      this.o.res.destroy(); // mid-stream: a cut connection is how the client learns it failed
      return;
    }
    this.answered = true;
    const problem = problemForUpstreamError(err);
    this.log('warn', err, 'upstream request failed', problem.status);
    void this.answerProblem(problem);
  }

  private onHeadersTimeout(): void {
    const err = new UpstreamTimeoutError('headers', this.o.timeouts.headersMs);
    if (this.upstreamReq) this.upstreamReq.destroy(err); // comes back through onError
    else this.onError(err); // still waiting for a pooled socket
  }

  /** The client's response closed ('close' is emitted once per response). */
  onClientClose(): void {
    if (this.o.res.writableFinished) return;
    this.clientGone = true;
    this.clearTimers();
    this.upstreamReq?.destroy();
    this.o.logger.debug({ connectorId: this.o.connectorId }, 'client went away; upstream request closed');
  }

  private clearTimers(): void {
    clearTimeout(this.headersTimer);
    clearTimeout(this.connectTimer);
  }

  private log(level: 'debug' | 'warn', err: unknown, msg: string, status?: number): void {
    const fields = { connectorId: this.o.connectorId, upstream: this.o.target.origin, code: errorCode(err), status };
    this.o.logger[level](fields, msg);
  }
}

// The client's response rides on the upstream's answer: shared listeners, no closures per request.
const CLIENT = Symbol('client-response');
type Relayed = IncomingMessage & { [CLIENT]?: ServerResponse };

function onAnswerError(this: Relayed): void {
  this[CLIENT]?.destroy();
}

/** The upstream broke off: a cut stream tells the client. */
function onAnswerClose(this: Relayed): void {
  if (!this.complete) this[CLIENT]?.destroy();
}

/**
 * An SSE stream may stay quiet for a while after its head; the client should learn it is open.
 * When the first event is already here, it goes out with the head in one write instead.
 */
function flushIfQuiet(proxyRes: IncomingMessage, res: ServerResponse): void {
  let started = false;
  proxyRes.once('data', () => (started = true));
  setImmediate(() => {
    if (!started && !res.destroyed) res.flushHeaders();
  });
}
