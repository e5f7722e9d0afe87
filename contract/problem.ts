// RFC 9457 problem details: the one error shape of every HTTP answer the service gives
// (REST API and MCP proxy alike). Errors thrown anywhere carry a status and a safe detail;
// the mappers in api/ and proxy/ turn them into this body and nothing else.

export interface FieldError {
  path: string;
  message: string;
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail?: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** An error whose detail is safe to show to the caller. */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly slug = slugFor(status),
    readonly errors?: FieldError[],
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(detail);
  }

  toBody(): ProblemBody {
    return problemBody(this.status, this.detail, this.slug, this.errors, this.extensions);
  }
}

export function problemBody(
  status: number,
  detail?: string,
  slug = slugFor(status),
  errors?: FieldError[],
  extensions: Record<string, unknown> = {},
): ProblemBody {
  return {
    type: `https://connector-registry.dev/problems/${slug}`,
    title: TITLES[status] ?? 'Error',
    status,
    ...(detail ? { detail } : {}),
    ...(errors && errors.length ? { errors } : {}),
    ...extensions,
  };
}

/** The problem type slug of a status when no more precise one is given ("not-found", ...). */
export function slugFor(status: number): string {
  return (TITLES[status] ?? 'error').toLowerCase().replace(/[^a-z]+/g, '-');
}
