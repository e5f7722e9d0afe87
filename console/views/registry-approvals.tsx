// Admins only: the stdio presets synced from the MCP registry, those still waiting for an admin's
// approval first (registry data is untrusted: such a preset runs only once what it runs is
// approved), each showing what will run and what changed since an earlier approval, with an
// Approve button that names the version and digest seen, so a change synced since the page loaded
// is refused (409) instead of approved unseen.
import { useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import type { Api } from '../api';
import { usePolling } from '../poll';
import { useAction } from '../use-action';
import type { Page, Preset, PresetRun } from '../types';
import { ErrorNote, ViewHeading } from './common';

type RegistryStdio = Preset & { name: string; version: string; approved: boolean };

const isRegistryStdio = (p: Preset): p is RegistryStdio => p.source === 'registry' && typeof p.approved === 'boolean' && !!p.name && !!p.version;

/** The approve path takes the server name as one segment: its slash travels as %2F. */
export const approvePath = (name: string) => `/api/v1/connectors/presets/${encodeURIComponent(name)}/approve`;

export function RegistryApprovals({ api }: { api: Api }) {
  const presets = usePolling(() => api.get<Page<Preset>>('/api/v1/connectors/presets'), 10_000, [api]);
  const { busy, error, run } = useAction();
  const [done, setDone] = useState<string | null>(null);
  const stdio = presets.data?.items.filter(isRegistryStdio) ?? [];
  const pending = stdio.filter((p) => !p.approved);
  const approved = stdio.filter((p) => p.approved);
  const approve = (p: RegistryStdio) => run(async () => {
    setDone(null);
    await api.post(approvePath(p.name), { version: p.version, ...(p.digest ? { digest: p.digest } : {}) });
    await presets.refresh();
    setDone(`Approved ${p.name} ${p.version}.`);
  });
  return (
    <main id="main">
      <ViewHeading>Registry approvals</ViewHeading>
      <p>Stdio servers synced from the MCP registry run only after an admin approves what the synced version runs; a sync that changes it asks again.</p>
      <ErrorNote error={presets.error} />
      <ErrorNote error={error} />
      <p role="status" class="done">{done}</p>
      <section aria-labelledby="pending-heading">
        <h2 id="pending-heading">Waiting for approval</h2>
        {presets.data && (pending.length === 0
          ? <p class="empty">No registry preset is waiting for approval.</p>
          : <PresetTable caption="Registry stdio presets waiting for approval" items={pending} action={(p) => (
            <button type="button" disabled={busy} aria-label={`Approve ${p.name} ${p.version}`} onClick={() => void approve(p)}>Approve</button>
          )} />)}
      </section>
      <section aria-labelledby="approved-heading">
        <h2 id="approved-heading">Approved</h2>
        {presets.data && (approved.length === 0
          ? <p class="empty">None yet.</p>
          : <PresetTable caption="Approved registry stdio presets" items={approved} action={() => <span class="state state-connected">approved</span>} />)}
      </section>
    </main>
  );
}

function PresetTable({ caption, items, action }: { caption: string; items: RegistryStdio[]; action: (p: RegistryStdio) => ComponentChildren }) {
  return (
    <table class="approvals">
      <caption class="visually-hidden">{caption}</caption>
      <thead>
        <tr><th scope="col">Server</th><th scope="col">Version</th><th scope="col">What will run</th><th scope="col">Runs here</th><th scope="col">Approval</th></tr>
      </thead>
      <tbody>
        {items.map((p) => (
          <tr key={p.name} data-preset-name={p.name}>
            <td data-label="Server">{p.metadata.name || p.name}{p.metadata.name && <> <code>{p.name}</code></>}{p.deprecated && <span class="reason"> (deprecated)</span>}</td>
            <td data-label="Version"><code>{p.version}</code></td>
            <td data-label="What will run" class="url"><RunSummary run={p.run} image={p.stdio?.image} changes={p.changes} /></td>
            <td data-label="Runs here">{p.runnable ? 'yes' : <span class="reason">{p.reason ?? 'no'}</span>}</td>
            <td data-label="Approval">{action(p)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The package, the command or image with its arguments, the environment, and what changed since the last approval. */
function RunSummary({ run, image, changes }: { run?: PresetRun; image?: string; changes?: string[] }) {
  if (!run) return <code>{image ?? '—'}</code>;
  const env = Object.entries(run.env);
  return (
    <div class="run">
      <div>{run.registry_type} <code>{run.identifier}</code>{run.version && <> <code>{run.version}</code></>}{run.registry_base_url && <> from <code>{run.registry_base_url}</code></>}</div>
      {(run.command ?? run.args).length > 0 && <div><code>{(run.command ?? [run.identifier, ...run.args]).join(' ')}</code></div>}
      {env.length > 0 && <ul class="env">{env.map(([name, value]) => <li key={name}><code>{name}={value}</code></li>)}</ul>}
      {changes && changes.length > 0 && (
        <div class="reason">Changed since the last approval:<ul class="changes">{changes.map((c) => <li key={c}>{c}</li>)}</ul></div>
      )}
    </div>
  );
}
