// What a connect supplies for the upstream besides its token: the headers and URL variables the
// connector's preset declares (env or registry), checked against the declarations, filled with
// the preset's fixed values and defaults, the variables bound into the URL. A connector without
// a preset takes any header whose name the proxy does not own (its owner's word for its own
// server, docs/presets.md), and no variables: its URL is what it was created with.
import type { FieldError } from '../contract/problem';
import type { Preset } from '../contract/schemas';
import { bindUrl, urlVariables, variableValueRefusal, type HeaderDeclaration } from '../contract/upstream-inputs';
import { normaliseUrl, InvalidUrlError } from '../contract/connector-url';

/** Something a connect request supplies for a preset. */
export interface PresetField {
  /** `access_token`: the connect request's access_token (sent as a header or injected as env). */
  name: string;
  in: 'connect' | 'url' | 'header' | 'env';
  secret: boolean;
  description?: string;
  required?: boolean;
  /** Never for a secret. */
  default?: string;
}

export interface ConnectInputs {
  headers: { name: string; value: string; secret: boolean }[];
  /** A stdio connector's environment values its preset declares (env_inputs). */
  env: { name: string; value: string }[];
  variables: Record<string, string>;
  /** The URL with its variables bound, normalised; null when it has none. */
  boundUrl: string | null;
}

export interface SuppliedInputs {
  headers?: Record<string, string>;
  variables?: Record<string, string>;
  env?: Record<string, string>;
}

/** The inputs of one connect, or the fields it got wrong (422, each field named). */
export function connectInputs(url: string, preset: Preset | undefined, body: SuppliedInputs): ConnectInputs | FieldError[] {
  const errors: FieldError[] = [];
  const headers = preset ? declaredHeaders(preset, body.headers ?? {}, errors) : ownHeaders(body.headers ?? {}, errors);
  const variables = preset ? boundVariables(url, preset, body.variables ?? {}, errors) : noVariables(body.variables ?? {}, errors);
  const env = suppliedEnv(preset, body.env ?? {}, errors);
  if (errors.length) return errors;
  if (!Object.keys(variables).length) return { headers, variables, env, boundUrl: null };
  try {
    return { headers, variables, env, boundUrl: normaliseUrl(bindUrl(url, variables)) };
  } catch (err) {
    return [{ path: 'variables', message: `the URL they make ${err instanceof InvalidUrlError ? err.message : 'is invalid'}` }];
  }
}

function declaredHeaders(preset: Preset, given: Record<string, string>, errors: FieldError[]): ConnectInputs['headers'] {
  const declared = new Map((preset.headers ?? []).map((h) => [h.name.toLowerCase(), h]));
  const supplied = new Map<string, string>();
  for (const [name, value] of Object.entries(given)) {
    const declaration = declared.get(name.toLowerCase());
    if (!declaration) errors.push({ path: `headers.${name}`, message: `the connector's preset declares no header ${name}` });
    else if (declaration.value !== undefined) errors.push({ path: `headers.${name}`, message: 'fixed by the preset' });
    else if (supplied.has(name.toLowerCase())) errors.push({ path: `headers.${name}`, message: 'given twice' });
    else if (declaration.choices?.length && !declaration.choices.includes(value)) errors.push({ path: `headers.${name}`, message: `must be one of ${declaration.choices.join(', ')}` });
    else supplied.set(name.toLowerCase(), value);
  }
  return [...declared.values()].flatMap((h) => {
    const value = supplied.get(h.name.toLowerCase()) ?? h.value ?? h.default;
    if (value !== undefined) return [{ name: h.name, value, secret: h.secret }];
    if (h.required) errors.push({ path: `headers.${h.name}`, message: 'required by the connector\'s preset' });
    return [];
  });
}

/** Without a preset, every header the owner gives is kept as a secret. */
function ownHeaders(given: Record<string, string>, errors: FieldError[]): ConnectInputs['headers'] {
  const seen = new Set<string>();
  return Object.entries(given).flatMap(([name, value]) => {
    if (seen.has(name.toLowerCase())) {
      errors.push({ path: `headers.${name}`, message: 'given twice' });
      return [];
    }
    seen.add(name.toLowerCase());
    return [{ name, value, secret: true }];
  });
}

function boundVariables(url: string, preset: Preset, given: Record<string, string>, errors: FieldError[]): Record<string, string> {
  const named = urlVariables(url);
  for (const name of Object.keys(given)) {
    if (!named.includes(name)) errors.push({ path: `variables.${name}`, message: `the connector's URL has no {${name}}` });
  }
  const bound: Record<string, string> = {};
  for (const name of named) {
    const declaration = preset.variables?.[name];
    if (declaration?.value !== undefined && given[name] !== undefined) {
      errors.push({ path: `variables.${name}`, message: 'fixed by the preset' });
      continue;
    }
    const value = declaration?.value ?? given[name] ?? declaration?.default;
    if (value === undefined) {
      errors.push({ path: `variables.${name}`, message: 'required: the connector\'s URL names it' });
      continue;
    }
    const why = variableValueRefusal(value, declaration?.choices);
    if (why) errors.push({ path: `variables.${name}`, message: why });
    else bound[name] = value;
  }
  return bound;
}

/** Only what the stdio preset declares (names exact: environments are case-sensitive); required ones given. */
function suppliedEnv(preset: Preset | undefined, given: Record<string, string>, errors: FieldError[]): ConnectInputs['env'] {
  const declared = preset?.stdio?.env_inputs ?? [];
  for (const name of Object.keys(given)) {
    if (!declared.some((d) => d.name === name)) errors.push({ path: `env.${name}`, message: `the connector's preset declares no environment variable ${name}` });
  }
  return declared.flatMap((d) => {
    const value = given[d.name];
    if (value !== undefined) return [{ name: d.name, value }];
    if (d.required) errors.push({ path: `env.${d.name}`, message: 'required by the connector\'s preset' });
    return [];
  });
}

function noVariables(given: Record<string, string>, errors: FieldError[]): Record<string, string> {
  for (const name of Object.keys(given)) errors.push({ path: `variables.${name}`, message: 'only a connector made from a preset whose URL names variables binds them' });
  return {};
}

/** What a preset asks a connect for, as GET /presets lists it (never a secret's default). */
export function presetInputFields(preset: Pick<Preset, 'url' | 'headers' | 'variables' | 'enterprise_managed' | 'stdio'>): PresetField[] {
  const variables = urlVariables(preset.url).flatMap((name): PresetField[] => {
    const v = preset.variables?.[name];
    if (v?.value !== undefined) return [];
    return [{ name, in: 'url', secret: false, required: (v?.required ?? true) && v?.default === undefined, ...describe(v?.description), ...(v?.default !== undefined ? { default: v.default } : {}) }];
  });
  const headers = (preset.headers ?? []).flatMap((h): PresetField[] => (h.value !== undefined ? [] : [headerField(h)]));
  // Enterprise-managed: the one credential a connect gives is the user's ID token (the console sends its sign-in's).
  const assertion: PresetField[] = preset.enterprise_managed
    ? [{ name: 'id_token', in: 'connect', secret: true, required: true, description: "The user's ID token (enterprise-managed authorization, SEP-990)" }]
    : [];
  const env = (preset.stdio?.env_inputs ?? []).map((e): PresetField => ({ name: e.name, in: 'env', secret: e.secret, required: e.required, ...describe(e.description) }));
  return [...variables, ...headers, ...env, ...assertion];
}

function headerField(h: HeaderDeclaration): PresetField {
  const shownDefault = !h.secret && h.default !== undefined ? { default: h.default } : {};
  return { name: h.name, in: 'header', secret: h.secret, required: h.required && h.default === undefined, ...describe(h.description), ...shownDefault };
}

function describe(description: string | undefined): { description?: string } {
  return description ? { description: description.slice(0, 512) } : {};
}
