// A registry entry (server.json as the registry served it) as a preset of this service. Pure: the
// sync stores entries as the registry gave them (validated), and every reader maps them with the
// operator's overlay at the time it reads, so an overlay change needs no new sync and the
// overlay's secrets are never stored with the registry's data.
import { hasReference } from './registry-inputs';
import { remoteInputs } from './registry-remote-inputs';
import { presetInputFields, type PresetField } from './connect-inputs';
import { mapPackage, type PackageKind } from './registry-packages';
import { describeRun, runDigest, type PresetRun } from './registry-approval';
import type { RegistryOverlay } from './registry-config';
import { normaliseUrl, InvalidUrlError } from '../contract/connector-url';
import { callerChosenVariables, presetClientCredentialsIssues, presetEnterpriseManagedIssues, workloadIdentityRefusal, type Preset } from '../contract/schemas';
import type { RegistryEntry, Transport } from './server-json';

export type { PresetField } from './connect-inputs';

export interface RegistryPreset {
  name: string;
  version: string;
  deprecated: boolean;
  kind: 'remote' | 'stdio';
  packageKind: PackageKind | null;
  /** What connectors are matched on: the remote's URL, or mcp+stdio://<server name>. */
  url: string;
  /** Display metadata (the overlay's, else the registry's title and description), also when not runnable. */
  metadata: Record<string, string>;
  /** What connects use; null when nothing here can run it (then `reason` says why). */
  preset: Preset | null;
  reason: string | null;
  fields: PresetField[];
  /** Stdio presets: what will run (the package the preset runs, else the first one), and its digest. */
  run: PresetRun | null;
  digest: string | null;
}

const MAX_DESCRIPTION = 512;

export function registryPreset(entry: RegistryEntry, overlay: RegistryOverlay | undefined): RegistryPreset {
  const metadata = metadataOf(entry, overlay);
  const base = { name: entry.name, version: entry.version, deprecated: entry.status === 'deprecated', metadata, run: null, digest: null };
  // A Streamable HTTP remote first; an SSE one (2024-11-05) only when it is the only remote to run.
  const remotes = entry.server.remotes ?? [];
  const remote = remotes.find((r) => r.type === 'streamable-http') ?? remotes.find((r) => r.type === 'sse');
  if (remote) return { ...base, ...remotePreset(remote, metadata, overlay) };
  const packages = entry.server.packages ?? [];
  const mapped = packages.map((p) => mapPackage(p, overlay));
  const chosen = Math.max(0, mapped.findIndex((m) => m.ok));
  const described = packages[chosen] ? describeRun(packages[chosen]) : null;
  const pinned = described ? { run: described.run, digest: runDigest(described) } : {};
  const runnable = mapped[chosen];
  const url = stdioUrlOf(entry.name);
  if (runnable?.ok) {
    const token: PresetField[] = runnable.tokenEnv ? [{ name: 'access_token', in: 'env', secret: true, description: `injected as ${runnable.tokenEnv}` }] : [];
    const preset = { url, metadata, stdio: runnable.stdio };
    return { ...base, ...pinned, kind: 'stdio', packageKind: runnable.kind, url, preset, reason: null, fields: [...token, ...presetInputFields(preset)] };
  }
  const why = mapped.map((m) => (m.ok ? '' : m.reason)).filter(Boolean);
  const reasons = [...why];
  if (remotes.length) reasons.push(`its remote transport ${remotes[0]!.type} is not supported`);
  return {
    ...base, ...pinned, kind: mapped.length ? 'stdio' : 'remote', packageKind: null, url, preset: null,
    reason: reasons.length ? reasons.join('; ') : 'it names neither a streamable-http or sse remote nor a package', fields: [],
  };
}

export function stdioUrlOf(name: string): string {
  return normaliseUrl(`mcp+stdio://${name}`);
}

function remotePreset(remote: Transport, metadata: Preset['metadata'], overlay: RegistryOverlay | undefined) {
  const kind = 'remote' as const;
  const template = remote.url ?? '';
  const inputs = remoteInputs(remote, overlay);
  const url = checkedUrl(template);
  const declared = { url: typeof url === 'string' ? url : template, headers: inputs.headers, variables: inputs.variables };
  const fields: PresetField[] = [...inputs.token, ...presetInputFields(declared)];
  if (typeof url !== 'string') return { kind, packageKind: null, url: template.slice(0, 2048), preset: null, reason: url.reason, fields };
  if (inputs.refusals.length) {
    return { kind, packageKind: null, url, preset: null, reason: `${inputs.refusals.join('; ')}, which this service cannot send`, fields };
  }
  const open = overlay?.workload_identity ? callerChosenVariables(url, inputs.variables) : [];
  if (open.length) return { kind, packageKind: null, url, preset: null, reason: `the overlay's workload_identity is ${workloadIdentityRefusal(open)}`, fields };
  const grantIssues = presetClientCredentialsIssues({ url, ...overlay, variables: inputs.variables });
  if (grantIssues.length) return { kind, packageKind: null, url, preset: null, reason: `the overlay's client_credentials: ${grantIssues.join('; ')}`, fields };
  const enterpriseIssues = presetEnterpriseManagedIssues({ url, ...overlay, variables: inputs.variables });
  if (enterpriseIssues.length) return { kind, packageKind: null, url, preset: null, reason: `the overlay's enterprise_managed: ${enterpriseIssues.join('; ')}`, fields };
  const preset: Preset = {
    url, metadata,
    ...(overlay?.client_id ? { client_id: overlay.client_id } : {}), ...(overlay?.client_secret ? { client_secret: overlay.client_secret } : {}),
    ...(overlay?.workload_identity ? { workload_identity: overlay.workload_identity } : {}),
    ...(overlay?.client_credentials ? { client_credentials: overlay.client_credentials } : {}),
    ...(overlay?.enterprise_managed ? { enterprise_managed: overlay.enterprise_managed } : {}),
    ...(inputs.headers.length ? { headers: inputs.headers } : {}), ...(Object.keys(inputs.variables).length ? { variables: inputs.variables } : {}),
    ...(remote.type === 'sse' ? { transport: 'sse' as const } : {}),
  };
  return { kind, packageKind: null, url, preset, reason: null, fields };
}

/** The remote's URL normalised, or why it cannot be one (a template is judged once filled). */
function checkedUrl(template: string): string | { reason: string } {
  const probe = hasReference(template) ? template.replace(/\{[A-Za-z0-9_-]+\}/g, 'x') : template;
  let url: string;
  try {
    url = normaliseUrl(probe);
  } catch (err) {
    return { reason: `its remote URL ${err instanceof InvalidUrlError ? err.message : 'is invalid'}` };
  }
  // Plain http only to this machine (a sub-registry's local test server), as for the issuer.
  if (!url.startsWith('https:') && !isLoopbackHttp(url)) return { reason: 'its remote URL is not https' };
  return hasReference(template) ? template.slice(0, 2048) : url;
}

function isLoopbackHttp(url: string): boolean {
  const host = new URL(url).hostname;
  return url.startsWith('http:') && (host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host));
}

/** The overlay's keys over the registry's title and description (within a record's metadata limits: registry-config.ts). */
function metadataOf(entry: RegistryEntry, overlay: RegistryOverlay | undefined): Record<string, string> & { name: string; description: string } {
  return {
    ...overlay?.metadata,
    name: overlay?.metadata?.name ?? entry.server.title ?? entry.name,
    description: overlay?.metadata?.description ?? entry.server.description.slice(0, MAX_DESCRIPTION),
  };
}
