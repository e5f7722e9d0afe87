// Headers and URL variables a connect supplies for the upstream (server.json's remote `headers` and
// `{variables}`): how a preset declares them, what a name or a value may be, and how variables are
// bound into the connector's URL. Pure: the API validates with it, the catalog maps registry
// remotes onto it, and the workflow and the proxy only ever see what it let through.
import { z } from 'zod';
import type { Ciphertext } from './ciphertext';

/** An RFC 9110 token: nothing a parser could read as the end of a name. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;

/** Visible ASCII with inner spaces: no CR, LF, NUL or other control character, no edge whitespace. */
const HEADER_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
export const MAX_HEADER_VALUE = 4096;
export const MAX_INPUTS = 16;

/**
 * Names the proxy owns: framing and hop-by-hop headers, the credentials it never takes from
 * anyone but the connect's own fields (Authorization is access_token), the MCP transport's headers
 * the caller's session decides, and what the proxy forwards or sets itself (forward-headers.ts).
 */
const RESERVED = new Set([
  'host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'proxy-connection', 'upgrade', 'te', 'trailer',
  'expect', 'authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'accept', 'accept-encoding', 'content-type',
  'content-encoding', 'last-event-id', 'forwarded', 'via', 'traceparent', 'tracestate', 'baggage',
]);
const RESERVED_PREFIXES = ['mcp-', 'x-forwarded-', 'x-connector-', 'sec-', 'proxy-'];

/** Why a header name may not be set for an upstream, or null. */
export function headerNameRefusal(name: string): string | null {
  if (!HEADER_NAME.test(name)) return 'must be a header name (RFC 9110 token characters, at most 64)';
  // A legal token, but as a key of the plain objects headers travel in it would set their prototype.
  if (name === '__proto__') return 'is not a header name this service sends';
  const lower = name.toLowerCase();
  if (RESERVED.has(lower) || RESERVED_PREFIXES.some((p) => lower.startsWith(p))) {
    return lower === 'authorization' ? 'is set by access_token, never as a header' : 'is a header the proxy owns (framing, hop-by-hop, MCP transport or credentials)';
  }
  return null;
}

export function headerValueRefusal(value: string): string | null {
  if (value.length > MAX_HEADER_VALUE) return `must be at most ${MAX_HEADER_VALUE} characters`;
  return HEADER_VALUE.test(value) ? null : 'must be visible ASCII (inner spaces allowed), without control characters or edge whitespace';
}

const VARIABLE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A value that stays one DNS label or one path segment: no '/', '@', ':', '?', '#', '%' or
 * whitespace, so that it can change neither the host nor the path's shape; '.' and '..' alone
 * would climb the path.
 */
const VARIABLE_VALUE = /^[A-Za-z0-9._~-]{1,253}$/;

export function variableValueRefusal(value: string, choices?: readonly string[]): string | null {
  if (choices?.length) return choices.includes(value) ? null : `must be one of ${choices.join(', ')}`;
  if (!VARIABLE_VALUE.test(value) || value === '.' || value === '..') {
    return "must be a DNS label or path segment: letters, digits, '.', '_', '~' and '-' only";
  }
  return null;
}

const HeaderNameSchema = z.string().superRefine((name, ctx) => {
  const why = headerNameRefusal(name);
  if (why) ctx.addIssue({ code: 'custom', message: why });
});

/** A header the connect supplies (or the preset fixes with `value`). */
export const HeaderDeclarationSchema = z.strictObject({
  name: HeaderNameSchema,
  /** Secret values are never shown anywhere; default true, the safe reading of an API key. */
  secret: z.boolean().default(true),
  required: z.boolean().default(false),
  default: z.string().max(MAX_HEADER_VALUE).optional(),
  description: z.string().max(512).optional(),
  /** The values a connect may give (absent: any header value). */
  choices: z.array(z.string().min(1).max(MAX_HEADER_VALUE)).max(64).optional(),
  /** Fixed by the preset (the operator's word): a connect may not set it. */
  value: z.string().max(MAX_HEADER_VALUE).optional(),
}).superRefine((h, ctx) => {
  for (const field of ['default', 'value'] as const) {
    const why = h[field] === undefined ? null : headerValueRefusal(h[field]);
    if (why) ctx.addIssue({ code: 'custom', path: [field], message: why });
  }
});
export type HeaderDeclaration = z.infer<typeof HeaderDeclarationSchema>;

/** A `{name}` of the preset's URL. */
export const VariableDeclarationSchema = z.strictObject({
  required: z.boolean().default(true),
  default: z.string().optional(),
  description: z.string().max(512).optional(),
  choices: z.array(z.string().min(1).max(253)).max(64).optional(),
  value: z.string().optional(),
}).superRefine((v, ctx) => {
  for (const field of ['default', 'value'] as const) {
    const why = v[field] === undefined ? null : variableValueRefusal(v[field], v.choices);
    if (why) ctx.addIssue({ code: 'custom', path: [field], message: why });
  }
});
export type VariableDeclaration = z.infer<typeof VariableDeclarationSchema>;

export const VariablesDeclarationSchema = z.record(z.string().regex(VARIABLE_NAME, 'must be a plain identifier'), VariableDeclarationSchema)
  .refine((v) => Object.keys(v).length <= MAX_INPUTS, `at most ${MAX_INPUTS} variables`);

/** The connect body's `headers`: names and values checked here, against the preset by the API. */
export const ConnectHeadersSchema = z.record(HeaderNameSchema, z.string().min(1).max(MAX_HEADER_VALUE).superRefine((value, ctx) => {
  const why = headerValueRefusal(value);
  if (why) ctx.addIssue({ code: 'custom', message: why });
})).refine((h) => Object.keys(h).length <= MAX_INPUTS, `at most ${MAX_INPUTS} headers`)
  .meta({ description: "Header name → value, as the connector's preset declares them (GET /connectors/presets, fields in header); secret values are sealed, sent only to the MCP server, never returned" });

export const ConnectVariablesSchema = z.record(z.string().regex(VARIABLE_NAME, 'must be a plain identifier'), z.string().min(1).max(253))
  .refine((v) => Object.keys(v).length <= MAX_INPUTS, `at most ${MAX_INPUTS} variables`)
  .meta({ description: "Variable name → value for the {variables} of the connector's URL (fields in url); each a DNS label or path segment" });

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** A value a stdio server's environment may hold: no NUL (it ends the string the kernel copies). */
function envValueRefusal(value: string): string | null {
  return value.includes('\0') ? 'must not contain NUL' : null;
}

/**
 * An environment variable of a stdio preset that a connect supplies (server.json's package
 * `environmentVariables` without a value): sealed like a header, opened only where the workload
 * starts, into the server's environment.
 */
export const EnvInputDeclarationSchema = z.strictObject({
  name: z.string().regex(ENV_NAME, 'must be an environment variable name'),
  /** Secret values are never shown anywhere; default true, the safe reading of an API key. */
  secret: z.boolean().default(true),
  required: z.boolean().default(false),
  description: z.string().max(512).optional(),
});
export type EnvInputDeclaration = z.infer<typeof EnvInputDeclarationSchema>;

/** The connect body's `env`: values for the env_inputs of a stdio preset. */
export const ConnectEnvSchema = z.record(z.string().regex(ENV_NAME, 'must be an environment variable name'), z.string().min(1).max(MAX_HEADER_VALUE).superRefine((value, ctx) => {
  const why = envValueRefusal(value);
  if (why) ctx.addIssue({ code: 'custom', message: why });
})).refine((e) => Object.keys(e).length <= MAX_INPUTS, `at most ${MAX_INPUTS} variables`)
  .meta({ description: "Environment variable name → value for a stdio connector, as its preset declares them (fields in env); sealed, given only to the server's process, never returned" });

/** What a connect bound for the upstream: the URL it is reached at, and its headers sealed. */
export interface UpstreamBinding {
  /** The connector's URL with its variables bound (null: the URL has none). */
  url: string | null;
  /** Bound variables, shown on the record (never secret). */
  variables: Record<string, string>;
  headers: SealedHeader[];
  /** A stdio connector's environment values, sealed for `envPurpose(name)` (absent: none, or a binding from before they existed). */
  env?: SealedHeader[];
}

export interface SealedHeader {
  name: string;
  /** Sealed for the purpose `headerPurpose(name)`, whether the preset calls it secret or not. */
  value: Ciphertext;
}

/** The secret box purpose a header's value is sealed for (one per header name and connector). */
export function headerPurpose(name: string): string {
  return `header:${name.toLowerCase()}`;
}

/** The secret box purpose an environment value is sealed for. */
export function envPurpose(name: string): string {
  return `env:${name}`;
}

const REFERENCE = /\{([A-Za-z0-9_-]{1,64})\}|%7B([A-Za-z0-9_-]{1,64})%7D/gi;

/** The `{variables}` a URL names, as written or as a normalised URL percent-encodes them. */
export function urlVariables(url: string): string[] {
  return [...new Set([...url.matchAll(REFERENCE)].map((m) => m[1] ?? m[2]!))];
}

/** The URL with every reference replaced by its value (each already checked); throws on one left unbound. */
export function bindUrl(template: string, values: Record<string, string>): string {
  return template.replace(REFERENCE, (_whole, a: string | undefined, b: string | undefined) => {
    const value = values[(a ?? b)!];
    if (value === undefined) throw new Error(`the URL variable ${a ?? b} is not bound`);
    return value;
  });
}
