// A server.json package as a stdio preset: an OCI image runs as it is; npm and PyPI packages run
// through npx or uvx (their code fetched when they start), on the local runtime only and only with
// the operator's word. Every value becomes one argv element or one environment value, never part
// of a shell line; what does not pass the checks makes the preset not runnable, with the reason.
import { argvOf, InputRefused, resolveInput } from './registry-inputs';
import type { RegistryOverlay } from './registry-config';
import { steeringReason } from './registry-env-policy';
import type { StdioConfig } from '../contract/schemas';
import type { KeyValueInput, Package } from './server-json';
import { MAX_INPUTS, type EnvInputDeclaration } from '../contract/upstream-inputs';

export type PackageKind = 'oci' | 'npm' | 'pypi';

export type PackageMapping =
  | { ok: true; kind: PackageKind; stdio: StdioConfig; tokenEnv: string | null }
  | { ok: false; kind: string; reason: string };

/** [registry/]namespace/image with a tag or a digest. */
const OCI_REFERENCE = /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]{1,5})?(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)+(?::[A-Za-z0-9_][A-Za-z0-9._-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;
const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;
const PYPI_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;
/**
 * Exact versions only: no ranges, no dist-tags (`latest`, `next`: a name npm resolves to whatever
 * is published under it today), nothing a resolver would read as a choice. npm: semver 2.0;
 * PyPI: a PEP 440 version in its normal form, without wildcards.
 */
export const EXACT_VERSION = {
  npm: /^(0|[1-9]\d{0,9})\.(0|[1-9]\d{0,9})\.(0|[1-9]\d{0,9})(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/,
  pypi: /^([1-9]\d{0,3}!)?(0|[1-9]\d{0,9})(\.(0|[1-9]\d{0,9})){0,5}((a|b|rc)(0|[1-9]\d{0,9}))?(\.post(0|[1-9]\d{0,9}))?(\.dev(0|[1-9]\d{0,9}))?(\+[a-z0-9]+(\.[a-z0-9]+)*)?$/,
} as const;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
export const DEFAULT_BASE = { npm: 'https://registry.npmjs.org', pypi: 'https://pypi.org' } as const;
/** Where npx and uvx are found in a container runtime (unused by the local runtime, which runs the command). */
const TOOL_IMAGE = { npm: 'docker.io/library/node:22-alpine', pypi: 'ghcr.io/astral-sh/uv:python3.12-alpine' } as const;

export function mapPackage(pkg: Package, overlay: RegistryOverlay | undefined): PackageMapping {
  const kind = pkg.registryType;
  const fail = (reason: string): PackageMapping => ({ ok: false, kind, reason });
  if (pkg.transport.type !== 'stdio') return fail(`its ${kind} package uses the ${pkg.transport.type} transport; only stdio packages run here`);
  try {
    if (kind === 'oci') return ociPackage(pkg, overlay);
    if (kind === 'npm' || kind === 'pypi') return toolPackage(pkg, kind, overlay);
    return fail(`${kind} packages are not supported (oci, npm and pypi are)`);
  } catch (err) {
    if (err instanceof InputRefused) return fail(err.message);
    throw err;
  }
}

function ociPackage(pkg: Package, overlay: RegistryOverlay | undefined): PackageMapping {
  const image = pkg.identifier;
  if (!OCI_REFERENCE.test(image)) throw new InputRefused('its OCI image reference is malformed');
  if (!/[:@][^/]*$/.test(image.slice(image.lastIndexOf('/')))) throw new InputRefused('its OCI image names no tag or digest');
  if (/:latest(@|$)/.test(image) && !image.includes('@sha256:')) throw new InputRefused('its OCI image uses the moving tag latest: an approval must name what runs');
  const required = (pkg.runtimeArguments ?? []).filter((a) => a.isRequired).map((a) => a.name ?? a.valueHint ?? 'argument');
  if (required.length) throw new InputRefused(`it needs container engine arguments (${required.join(', ')}), which this service never passes to the engine`);
  const { argv, missing } = argvOf(pkg.packageArguments, 'argument');
  const mapping = withEnv(pkg, 'oci', { image, ...(argv.length ? { args: argv } : {}) }, missing, overlay);
  // A tag can be moved to other bytes after an approval; a digest cannot. A tag is taken only
  // when the operator says this server's image registry keeps tags immutable (docs/presets.md).
  if (!image.includes('@sha256:') && !overlay?.immutable_image_tags) {
    throw new InputRefused('its OCI image names a tag without a digest: a tag can be moved to other bytes after an approval (the operator may vouch for immutable tags: overlay immutable_image_tags)');
  }
  return mapping;
}

function toolPackage(pkg: Package, kind: 'npm' | 'pypi', overlay: RegistryOverlay | undefined): PackageMapping {
  if (!overlay?.allow_package_fetch) {
    throw new InputRefused(`${kind} packages fetch their code when they start: the operator allows it per server (overlay allow_package_fetch)`);
  }
  if (pkg.registryBaseUrl && pkg.registryBaseUrl.replace(/\/+$/, '') !== DEFAULT_BASE[kind]) {
    throw new InputRefused(`its ${kind} package comes from another registry than ${DEFAULT_BASE[kind]}`);
  }
  if (!(kind === 'npm' ? NPM_NAME : PYPI_NAME).test(pkg.identifier)) throw new InputRefused(`its ${kind} package name is malformed`);
  if (!pkg.version || !EXACT_VERSION[kind].test(pkg.version)) {
    throw new InputRefused(`its ${kind} package names no exact version (${kind === 'npm' ? 'semver, no dist-tag' : 'PEP 440, no wildcard'})`);
  }
  if ((pkg.runtimeArguments ?? []).length) throw new InputRefused(`it passes arguments to ${kind === 'npm' ? 'npx' : 'uvx'}, which this service never does`);
  const { argv, missing } = argvOf(pkg.packageArguments, 'argument');
  return withEnv(pkg, kind, { image: TOOL_IMAGE[kind], command: [...toolCommand(kind, pkg.identifier, pkg.version), ...argv] }, missing, overlay);
}

/** A variable the connect supplies: secret unless the entry says otherwise, as a key would be. */
function envInput(variable: KeyValueInput): EnvInputDeclaration {
  return {
    name: variable.name, secret: variable.isSecret ?? true, required: variable.isRequired ?? false,
    ...(variable.description ? { description: variable.description.slice(0, 512) } : {}),
  };
}

/** How the local runtime fetches and starts an npm or PyPI package at one exact version. */
export function toolCommand(kind: 'npm' | 'pypi', identifier: string, version: string): string[] {
  return kind === 'npm' ? ['npx', '--yes', `${identifier}@${version}`] : ['uvx', `${identifier}==${version}`];
}

/**
 * Fixed and default values become env; the first required secret is the connect's token; every
 * other variable without a value is one the connect supplies (env_inputs); argument gaps refuse.
 */
function withEnv(pkg: Package, kind: PackageKind, base: StdioConfig, missing: string[], overlay: RegistryOverlay | undefined): PackageMapping {
  const env: Record<string, string> = {};
  const inputs: NonNullable<StdioConfig['env_inputs']> = [];
  let tokenEnv: string | null = null;
  for (const variable of pkg.environmentVariables ?? []) {
    if (!ENV_NAME.test(variable.name)) throw new InputRefused(`its environment variable name ${JSON.stringify(variable.name.slice(0, 64))} is malformed`);
    const steering = steeringReason(variable.name);
    if (steering) throw new InputRefused(`its environment variable ${variable.name} is refused from registry entries: ${steering}`);
    const resolved = resolveInput(variable, `environment variable ${variable.name}`);
    if ('value' in resolved) env[variable.name] = resolved.value;
    else if ('missing' in resolved && variable.isSecret && tokenEnv === null) tokenEnv = variable.name;
    // A value of the user's own (no value or default at all) is the connect's to give; a template
    // with a gap in it stays refused: the connect would have to know the template to fill it.
    else if ('absent' in resolved || (variable.value === undefined && variable.default === undefined)) inputs.push(envInput(variable));
    else missing.push(resolved.missing);
  }
  if (inputs.length > MAX_INPUTS) throw new InputRefused(`it asks for more than ${MAX_INPUTS} environment variables a connect supplies`);
  if (missing.length) throw new InputRefused(`it needs ${missing.join(', ')}, which a connect request cannot supply yet`);
  const stdio: StdioConfig = {
    ...base,
    ...(Object.keys(env).length ? { env } : {}),
    ...(tokenEnv ? { access_token_env_name: tokenEnv } : {}),
    ...(inputs.length ? { env_inputs: inputs } : {}),
    ...(overlay?.resources ? { resources: overlay.resources } : {}),
    // Egress as the operator allows it; npx and uvx fetch the package at start, so they need the internet.
    ...(overlay?.internet || kind !== 'oci' ? { internet: true } : {}),
    ...(overlay?.allowed_networks?.length ? { allowed_networks: overlay.allowed_networks } : {}),
  };
  return { ok: true, kind, stdio, tokenEnv };
}
