// The console's one way to the service: the public REST API, with the signed-in user's own
// credential, same origin. Errors arrive as RFC 9457 problem details and are kept whole, so a
// view can show the service's own words (and the field errors of a 422).

export interface Problem {
  type?: string;
  status: number;
  title: string;
  detail?: string;
  errors?: { path: string; message: string }[];
}

export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail ?? problem.title);
  }
  get status(): number {
    return this.problem.status;
  }
}

export type Credential = { kind: 'key' | 'oidc'; value: string } | null;

export interface Api {
  get<T>(path: string): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
  patch<T>(path: string, body: unknown): Promise<T>;
  delete<T>(path: string): Promise<T>;
  /** The credential's Authorization header value, for the MCP paths (null with callers not authenticated). */
  authorization: string | null;
}

/** `onUnauthorized`: the credential was refused (expired token, removed key); the session ends. */
export function createApi(credential: Credential, onUnauthorized: () => void): Api {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (credential) headers.authorization = `Bearer ${credential.value}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store', credentials: 'omit' });
    const text = await res.text();
    const parsed = text ? safeJson(text) : undefined;
    if (res.ok) return parsed as T;
    if (res.status === 401 && credential) onUnauthorized();
    const problem = (parsed && typeof parsed === 'object' ? parsed : {}) as Partial<Problem>;
    throw new ApiError({ type: problem.type, status: res.status, title: problem.title ?? res.statusText, detail: problem.detail, errors: problem.errors });
  };
  return {
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body ?? {}),
    patch: (path, body) => call('PATCH', path, body),
    delete: (path) => call('DELETE', path),
    authorization: credential ? `Bearer ${credential.value}` : null,
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Path segments are the API's own ids, still encoded: a view never builds a path from free text. */
export const connectorPath = (id: string, suffix = '') => `/api/v1/connectors/${encodeURIComponent(id)}${suffix}`;
export const toolsetPath = (id: string, suffix = '') => `/api/v1/toolsets/${encodeURIComponent(id)}${suffix}`;

export function query(params: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value) search.set(key, value);
  const text = search.toString();
  return text ? `?${text}` : '';
}
