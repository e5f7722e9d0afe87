// The one reading of a failed network exchange, shared by the OAuth steps, the connect probe and
// the proxy: which kind of failure it was, found anywhere in the cause chain (fetch wraps the
// socket error in `cause`; happy eyeballs wraps several in an AggregateError's `errors`).
// Only the kind and the error code are kept: a foreign error's message may name hosts or carry
// a response body.

export type NetworkFailureKind = 'blocked' | 'timeout' | 'tls' | 'refused' | 'closed' | 'dns' | 'unreachable';

export interface NetworkFailure {
  kind: NetworkFailureKind;
  code: string;
  /** The address guard's own sentence (it names the policy, never a secret); for `blocked` only. */
  guardMessage?: string;
}

const KIND_BY_CODE: Record<string, NetworkFailureKind> = {
  EBLOCKEDADDRESS: 'blocked',
  UPSTREAM_TIMEOUT: 'timeout',
  ETIMEDOUT: 'timeout',
  ESOCKETTIMEDOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  ECONNREFUSED: 'refused',
  ECONNRESET: 'closed',
  EPIPE: 'closed',
  ECONNABORTED: 'closed',
  UND_ERR_SOCKET: 'closed',
  UND_ERR_CLOSED: 'closed',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
};

const TLS_CODE = /^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO)/;

/** What a person is told for each kind; the subject ("the MCP server", "the token request") varies. */
export const NETWORK_FAILURE_TEXT: Record<NetworkFailureKind, string> = {
  blocked: 'the address is not allowed by the address policy',
  timeout: 'did not answer in time',
  tls: 'the TLS handshake failed',
  refused: 'refused the connection',
  closed: 'closed the connection before it answered',
  dns: 'the host name could not be resolved',
  unreachable: 'is unreachable',
};

/** The network failure inside `err`, or null when it is not one (an HTTP answer, a bug). */
export function networkFailure(err: unknown): NetworkFailure | null {
  for (const e of errorTree(err)) {
    const code = codeOf(e);
    if (code === undefined) {
      if ((e as { name?: unknown }).name === 'TimeoutError') return { kind: 'timeout', code: 'TimeoutError' };
      continue;
    }
    const kind = KIND_BY_CODE[code] ?? (TLS_CODE.test(code) ? 'tls' : undefined);
    if (!kind) continue;
    if (kind === 'blocked') return { kind, code, guardMessage: String((e as Error).message ?? '') };
    return { kind, code };
  }
  return null;
}

/** The error, its causes and the members of any AggregateError on the way, bounded. */
function errorTree(err: unknown): unknown[] {
  const seen: unknown[] = [];
  const queue: unknown[] = [err];
  while (queue.length && seen.length < 16) {
    const current = queue.shift();
    if (!(current instanceof Object) || seen.includes(current)) continue;
    seen.push(current);
    const { cause, errors } = current as { cause?: unknown; errors?: unknown };
    if (cause !== undefined) queue.push(cause);
    if (Array.isArray(errors)) queue.push(...errors);
  }
  return seen;
}

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}
