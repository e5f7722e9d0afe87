// A registry remote's `headers` and URL `{variables}` as a preset's declarations: what a connect
// supplies (the connect body's headers and variables), what the registry or the operator's
// overlay fixes, and what this service cannot send (an Authorization header that is not a Bearer
// token, a header the proxy owns, a value format with more than one blank to fill, a secret in the URL).
import { resolveInput } from './registry-inputs';
import { headerNameRefusal, headerValueRefusal, variableValueRefusal, type HeaderDeclaration, type VariableDeclaration } from '../contract/upstream-inputs';
import type { RegistryOverlay } from './registry-config';
import type { KeyValueInput, Transport } from './server-json';
import type { PresetField } from './connect-inputs';

export interface RemoteInputs {
  /** The access_token field, when the remote asks for an Authorization: Bearer header. */
  token: PresetField[];
  headers: HeaderDeclaration[];
  variables: Record<string, VariableDeclaration>;
  /** What keeps the remote from running here, in words. */
  refusals: string[];
}

const BEARER_TEMPLATE = /^Bearer \{[A-Za-z0-9_-]+\}$/;
/** A value that is one blank to fill, `{api_key}`: the connect's header value fills it. */
const ONE_BLANK = /^\{([A-Za-z0-9_-]+)\}$/;
const REFERENCE = /\{([A-Za-z0-9_-]+)\}/g;

export function remoteInputs(remote: Transport, overlay: RegistryOverlay | undefined): RemoteInputs {
  const out: RemoteInputs = { token: [], headers: [], variables: {}, refusals: [] };
  for (const name of new Set([...(remote.url ?? '').matchAll(REFERENCE)].map((m) => m[1]!))) {
    variableOf(name, remote, overlay, out);
  }
  for (const header of remote.headers ?? []) headerOf(header, overlay, out);
  return out;
}

function variableOf(name: string, remote: Transport, overlay: RegistryOverlay | undefined, out: RemoteInputs): void {
  const input = remote.variables?.[name];
  if (input?.isSecret) {
    out.refusals.push(`its URL variable ${name} is secret (a URL is shown on the connector's record)`);
    return;
  }
  const fixed = overlay?.variables?.[name] ?? input?.value;
  const declaration: VariableDeclaration = {
    required: input?.isRequired ?? true,
    ...(fixed !== undefined ? { value: fixed } : {}),
    ...(input?.default !== undefined ? { default: input.default } : {}),
    ...(input?.description ? { description: input.description.slice(0, 512) } : {}),
    ...(input?.choices?.length ? { choices: input.choices } : {}),
  };
  const bad = [declaration.value, declaration.default].find((v) => v !== undefined && variableValueRefusal(v, declaration.choices));
  if (bad !== undefined) out.refusals.push(`its URL variable ${name} has a value that is not a DNS label or path segment`);
  else out.variables[name] = declaration;
}

function headerOf(header: KeyValueInput, overlay: RegistryOverlay | undefined, out: RemoteInputs): void {
  if (/^authorization$/i.test(header.name)) {
    if (header.value === undefined ? header.isSecret : BEARER_TEMPLATE.test(header.value)) {
      out.token.push({ name: 'access_token', in: 'connect', secret: true, description: 'sent as Authorization: Bearer' });
    } else out.refusals.push('its Authorization header is not a Bearer token');
    return;
  }
  const nameRefused = headerNameRefusal(header.name);
  if (nameRefused) {
    out.refusals.push(`its header ${header.name.slice(0, 64)} ${nameRefused}`);
    return;
  }
  const overlaid = Object.entries(overlay?.headers ?? {}).find(([name]) => name.toLowerCase() === header.name.toLowerCase())?.[1];
  const declaration = overlaid !== undefined ? fixedHeader(header, overlaid) : declaredHeader(header);
  if (typeof declaration === 'string') out.refusals.push(declaration);
  else if (declaration) out.headers.push(declaration);
}

/** The registry's declaration as a preset's, or why it cannot be sent; null: an optional header nobody gives. */
function declaredHeader(header: KeyValueInput): HeaderDeclaration | string | null {
  const choices = header.choices?.filter((c) => !headerValueRefusal(c));
  const base = {
    name: header.name, required: Boolean(header.isRequired),
    ...(header.description ? { description: header.description.slice(0, 512) } : {}), ...(choices?.length ? { choices } : {}),
  };
  const blank = header.value === undefined ? null : ONE_BLANK.exec(header.value)?.[1];
  const variable = blank ? header.variables?.[blank] : undefined;
  if (header.value === undefined || (blank && variable?.value === undefined)) {
    const secret = Boolean(header.isSecret || variable?.isSecret);
    const required = base.required || Boolean(variable?.isRequired);
    const fallback = variable?.default ?? (header.value === undefined ? header.default : undefined);
    if (fallback !== undefined && headerValueRefusal(fallback)) return `its header ${header.name} has a default that is not a header value`;
    return { ...base, secret, required, ...(fallback !== undefined ? { default: fallback } : {}), ...(variable?.description && !header.description ? { description: variable.description.slice(0, 512) } : {}) };
  }
  const resolved = resolveInput(header, `the header ${header.name}`);
  if ('missing' in resolved) return `it needs ${resolved.missing} in a value format with more than a blank to fill`;
  if ('absent' in resolved) return null;
  return fixedHeader(header, resolved.value);
}

function fixedHeader(header: KeyValueInput, value: string): HeaderDeclaration | string {
  if (headerValueRefusal(value)) return `its header ${header.name} has a value that is not a header value`;
  return { name: header.name, secret: Boolean(header.isSecret), required: false, value };
}
