// A new connector, from one of the presets (its URL; the service applies the preset's metadata
// and credentials) or from any URL, with optional display metadata and OAuth client credentials.
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api';
import { go, hrefOf } from '../route';
import { useAction } from '../use-action';
import type { Connector, Page, Preset } from '../types';
import { ErrorNote, ViewHeading } from './common';

type Source = 'preset' | 'url';

export function CreateConnector({ api }: { api: Api }) {
  const [presets, setPresets] = useState<Preset[] | undefined>(undefined);
  const [source, setSource] = useState<Source>('preset');
  const [fields, setFields] = useState({ preset: '', url: '', name: '', description: '', client_id: '', client_secret: '' });
  const [loadError, setLoadError] = useState<unknown>(null);
  const { busy, error, run } = useAction();
  useEffect(() => {
    api.get<Page<Preset>>('/api/v1/connectors/presets').then((p) => {
      setPresets(p.items);
      if (p.items.length === 0) setSource('url');
    }, setLoadError);
  }, [api]);
  const set = (name: keyof typeof fields) => (e: Event) => setFields({ ...fields, [name]: (e.target as HTMLInputElement).value });

  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const metadata = Object.fromEntries(Object.entries({ name: fields.name.trim(), description: fields.description.trim() }).filter(([, v]) => v));
      const body = {
        url: source === 'preset' ? fields.preset : fields.url.trim(),
        ...(Object.keys(metadata).length ? { metadata } : {}),
        ...(fields.client_id.trim() ? { client_id: fields.client_id.trim() } : {}),
        ...(fields.client_secret ? { client_secret: fields.client_secret } : {}),
      };
      const created = await api.post<Connector>('/api/v1/connectors', body);
      go({ view: 'connector', id: created.id });
    });
  };

  return (
    <main id="main">
      <p><a href={hrefOf({ view: 'list' })}>← Connectors</a></p>
      <ViewHeading>New connector</ViewHeading>
      <form class="card" onSubmit={submit}>
        <fieldset>
          <legend>Start from</legend>
          <label class="inline"><input type="radio" name="source" value="preset" checked={source === 'preset'} disabled={!presets?.length} onChange={() => setSource('preset')} /> a preset</label>
          <label class="inline"><input type="radio" name="source" value="url" checked={source === 'url'} onChange={() => setSource('url')} /> a URL</label>
        </fieldset>
        {source === 'preset' ? (
          <>
            <label for="preset">Preset</label>
            <select id="preset" required value={fields.preset} onChange={set('preset')}>
              <option value="" disabled>Choose a preset</option>
              {(presets ?? []).map((p) => (
                <option key={p.url} value={p.url} disabled={!p.runnable}>
                  {presetLabel(p)}{p.runnable ? '' : ` — ${p.reason ?? 'cannot run here'}`}
                </option>
              ))}
            </select>
            <PresetNote preset={presets?.find((p) => p.url === fields.preset)} />
          </>
        ) : (
          <>
            <label for="url">MCP server URL</label>
            <input id="url" type="url" required placeholder="https://mcp.example.com/mcp" value={fields.url} onInput={set('url')} />
          </>
        )}
        <label for="name">Name <span class="hint">(optional; a preset's is used otherwise)</span></label>
        <input id="name" maxLength={512} value={fields.name} onInput={set('name')} />
        <label for="description">Description <span class="hint">(optional)</span></label>
        <input id="description" maxLength={512} value={fields.description} onInput={set('description')} />
        <details>
          <summary>OAuth client credentials (optional)</summary>
          <label for="client-id">Client id</label>
          <input id="client-id" autocomplete="off" value={fields.client_id} onInput={set('client_id')} />
          <label for="client-secret">Client secret</label>
          <input id="client-secret" type="password" autocomplete="off" value={fields.client_secret} onInput={set('client_secret')} />
        </details>
        <button type="submit" disabled={busy}>Create</button>
        <ErrorNote error={error ?? loadError} />
      </form>
    </main>
  );
}

/** Its name, and that it is a stdio server unless the name says so already ("Everything (stdio)"). */
export function presetLabel(p: Preset): string {
  const name = p.metadata.name ?? p.url;
  return p.stdio && !/\bstdio\b/i.test(name) ? `${name} (stdio)` : name;
}

function PresetNote({ preset }: { preset: Preset | undefined }) {
  if (!preset) return null;
  return (
    <p class="hint">
      {preset.metadata.description ?? ''} <code>{preset.url}</code>{preset.stdio ? <> — runs <code>{preset.stdio.image}</code></> : null}
    </p>
  );
}
