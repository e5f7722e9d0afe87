// The preset catalog: parsed from CONNECTOR__PRESETS (which replaces the built-ins), matched
// against connector URLs, and shown without secrets.
import { matchKey } from '../contract/connector-url';
import { PresetSchema, type Preset } from '../contract/schemas';

export const BUILT_IN_PRESETS: readonly Preset[] = [
  {
    url: 'https://mcp.stripe.com/',
    metadata: { name: 'Stripe', description: 'Payment processing: customers, payments, invoices and subscriptions.' },
  },
  {
    url: 'https://mcp.box.com/',
    metadata: { name: 'Box', description: 'Content management: files, folders and metadata stored in Box.' },
  },
  {
    url: 'https://api.githubcopilot.com/mcp',
    metadata: { name: 'GitHub', description: 'Code hosting: repositories, issues and pull requests on GitHub.' },
  },
];

export class PresetConfigError extends Error {}

/** Parses CONNECTOR__PRESETS; a bad entry throws naming the entry and the field. */
export function parsePresets(text: string | undefined): Preset[] {
  if (text === undefined || text.trim() === '') return [...BUILT_IN_PRESETS];
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new PresetConfigError(`CONNECTOR__PRESETS is not valid JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(raw)) throw new PresetConfigError('CONNECTOR__PRESETS must be a JSON array of presets');
  return raw.map((entry, index) => {
    const parsed = PresetSchema.safeParse(entry);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length ? issue.path.join('.') : '(entry)';
    const url = typeof (entry as { url?: unknown })?.url === 'string' ? ` (${(entry as { url: string }).url})` : '';
    throw new PresetConfigError(`CONNECTOR__PRESETS entry ${index}${url}, field ${field}: ${issue.message}`);
  });
}

export function findPreset(url: string, presets: readonly Preset[]): Preset | undefined {
  const key = matchKey(url);
  return presets.find((p) => matchKey(p.url) === key);
}

/** Where this deployment runs stdio servers: `auto` resolved against the machine. */
export type StdioRuntimeKind = 'container' | 'local' | 'kubernetes';

export function publicPreset(preset: Preset, runtime: StdioRuntimeKind) {
  const reason = unrunnableReason(preset, runtime);
  return {
    url: preset.url,
    metadata: { ...(preset.metadata ?? {}) } as Record<string, string>,
    ...(preset.stdio ? { stdio: { image: preset.stdio.image } } : {}),
    runnable: reason === null,
    ...(reason === null ? {} : { reason }),
  };
}

/** Why this deployment cannot run a preset, or null. Only a stdio preset without command on local processes. */
export function unrunnableReason(preset: Preset, runtime: StdioRuntimeKind): string | null {
  if (!preset.stdio || preset.stdio.command || runtime !== 'local') return null;
  return 'defined by its image only: it runs on the container or the Kubernetes runtime, and this deployment runs stdio servers as local processes';
}

export type { Preset };
