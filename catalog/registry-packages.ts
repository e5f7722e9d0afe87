// A server.json package as a stdio preset: an OCI image runs as it is; npm and PyPI packages run
// through npx or uvx (their code fetched when they start), on the local runtime only and only with
// the operator's word. Every value becomes one argv element or one environment value, never part
// of a shell line; what does not pass the checks makes the preset not runnable, with the reason.
import { argvOf, InputRefused, resolveInput } from './registry-inputs';
import type { RegistryOverlay } from './registry-config';
import type { StdioConfig } from '../contract/schemas';
import type { Package } from './server-json';

export type PackageKind = 'oci' | 'npm' | 'pypi';

export type PackageMapping =
  | { ok: true; kind: PackageKind; stdio: StdioConfig; tokenEnv: string | null }
  | { ok: false; kind: string; reason: string };

/** [registry/]namespace/image with a tag or a digest. */
const OCI_REFERENCE = /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]{1,5})?(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)+(?::[A-Za-z0-9_][A-Za-z0-9._-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;
const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;
const PYPI_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;
/** Exact versions only: no ranges, nothing a resolver would read as a choice. */
const EXACT_VERSION = /^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const DEFAULT_BASE = { npm: 'https://registry.npmjs.org', pypi: 'https://pypi.org' } as const;
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
  return withEnv(pkg, 'oci', { image, ...(argv.length ? { args: argv } : {}) }, missing, overlay);
}

function toolPackage(pkg: Package, kind: 'npm' | 'pypi', overlay: RegistryOverlay | undefined): PackageMapping {
  if (!overlay?.allow_package_fetch) {
    throw new InputRefused(`${kind} packages fetch their code when they start: the operator allows it per server (overlay allow_package_fetch)`);
  }
  if (pkg.registryBaseUrl && pkg.registryBaseUrl.replace(/\/+$/, '') !== DEFAULT_BASE[kind]) {
    throw new InputRefused(`its ${kind} package comes from another registry than ${DEFAULT_BASE[kind]}`);
  }
  if (!(kind === 'npm' ? NPM_NAME : PYPI_NAME).test(pkg.identifier)) throw new InputRefused(`its ${kind} package name is malformed`);
  if (!pkg.version || !EXACT_VERSION.test(pkg.version)) throw new InputRefused(`its ${kind} package names no exact version`);
  if ((pkg.runtimeArguments ?? []).length) throw new InputRefused(`it passes arguments to ${kind === 'npm' ? 'npx' : 'uvx'}, which this service never does`);
  const { argv, missing } = argvOf(pkg.packageArguments, 'argument');
  const command = kind === 'npm'
    ? ['npx', '--yes', `${pkg.identifier}@${pkg.version}`]
    : ['uvx', `${pkg.identifier}==${pkg.version}`];
  return withEnv(pkg, kind, { image: TOOL_IMAGE[kind], command: [...command, ...argv] }, missing, overlay);
}

/** Fixed and default values become env; the first required secret is the connect's token; other gaps refuse. */
function withEnv(pkg: Package, kind: PackageKind, base: StdioConfig, missing: string[], overlay: RegistryOverlay | undefined): PackageMapping {
  const env: Record<string, string> = {};
  let tokenEnv: string | null = null;
  for (const variable of pkg.environmentVariables ?? []) {
    if (!ENV_NAME.test(variable.name)) throw new InputRefused(`its environment variable name ${JSON.stringify(variable.name.slice(0, 64))} is malformed`);
    const resolved = resolveInput(variable, `environment variable ${variable.name}`);
    if ('value' in resolved) env[variable.name] = resolved.value;
    else if ('missing' in resolved && variable.isSecret && tokenEnv === null) tokenEnv = variable.name;
    else if ('missing' in resolved) missing.push(resolved.missing);
  }
  if (missing.length) throw new InputRefused(`it needs ${missing.join(', ')}, which a connect request cannot supply yet`);
  const stdio: StdioConfig = {
    ...base,
    ...(Object.keys(env).length ? { env } : {}),
    ...(tokenEnv ? { access_token_env_name: tokenEnv } : {}),
    ...(overlay?.resources ? { resources: overlay.resources } : {}),
  };
  return { ok: true, kind, stdio, tokenEnv };
}
