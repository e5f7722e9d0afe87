// A new toolset (#/toolsets/new), or one toolset: how to use it (its MCP address, client
// configurations), its tools with a form to call one, its calls, its settings to change, delete.
import { useState } from 'preact/hooks';
import { ApiError, toolsetPath, type Api } from '../api';
import { usePolling } from '../poll';
import { go, hrefOf } from '../route';
import { useAction } from '../use-action';
import type { Call, Page, Toolset } from '../types';
import { ApprovalRules } from './approval-rules';
import { CallTable } from './call-audit';
import { ClientConfig } from './client-config';
import { ErrorNote, ViewHeading } from './common';
import { TaskList } from './task-list';
import { ToolsPanel } from './tools-panel';
import { ToolsetForm } from './toolset-form';

const back = <p><a href={hrefOf({ view: 'toolsets' })}>← Toolsets</a></p>;

export function NewToolset({ api }: { api: Api }) {
  return (
    <main id="main">
      {back}
      <ViewHeading>New toolset</ViewHeading>
      <ToolsetForm api={api} onSaved={(saved) => go({ view: 'toolset', id: saved.id })} />
    </main>
  );
}

export function ToolsetDetail({ api, id }: { api: Api; id: string }) {
  const record = usePolling(() => api.get<Toolset>(toolsetPath(id)), 10_000, [api, id]);
  const calls = usePolling(() => api.get<Page<Call>>(toolsetPath(id, '/calls?limit=20')), 5000, [api, id]);
  const [saved, setSaved] = useState<string | null>(null);
  const remove = useAction();
  if (record.error instanceof ApiError && record.error.status === 404) {
    return <main id="main">{back}<ViewHeading>Toolset not found</ViewHeading><p role="status">No toolset <code>{id}</code> is visible to you: it was deleted, or never existed.</p></main>;
  }
  const ts = record.data;
  if (!ts) return <main id="main">{back}<ViewHeading>Toolset</ViewHeading><ErrorNote error={record.error} /><p>Loading…</p></main>;
  const del = () => {
    if (!confirm(`Delete the toolset “${ts.name}”? Its connectors stay as they are.`)) return;
    void remove.run(async () => {
      await api.delete(toolsetPath(id));
      go({ view: 'toolsets' }, `Deleted the toolset “${ts.name}”.`);
    });
  };
  return (
    <main id="main">
      {back}
      <ViewHeading>{ts.name}</ViewHeading>
      {ts.description && <p>{ts.description}</p>}
      <p>Its tools are those of {ts.members.map((m) => <code key={m.connector_id}>{m.prefix}__…</code>).reduce<unknown[]>((all, el, i) => (i ? [...all, ', ', el] : [el]), [])}.</p>
      <ClientConfig mcpUrl={ts.mcp_url} name={ts.name} />
      <ToolsPanel key={ts.updated_at} mcpUrl={ts.mcp_url} authorization={api.authorization} ready version={ts.updated_at} />
      <section aria-labelledby="toolset-calls-heading">
        <h2 id="toolset-calls-heading">Calls</h2>
        <ErrorNote error={calls.error} />
        {calls.data && (calls.data.items.length === 0 ? <p class="empty">No calls yet.</p> : <CallTable items={calls.data.items} />)}
      </section>
      <TaskList api={api} path={toolsetPath(id, '/tasks')} version={calls.data?.items[0]?.id ?? ''} />
      <ApprovalRules<Toolset> api={api} path={toolsetPath(id)} rules={ts.approval_rules} onSaved={(answer) => { record.set(answer); void record.refresh(); }} />
      <section aria-labelledby="settings-heading">
        <h2 id="settings-heading">Settings</h2>
        {saved && <p class="notice" role="status">{saved}</p>}
        <ToolsetForm key={ts.updated_at} api={api} initial={ts} onSaved={(next) => { record.set(next); setSaved('Saved.'); }} />
        <button type="button" class="danger" disabled={remove.busy} onClick={del}>Delete the toolset</button>
        <ErrorNote error={remove.error} />
      </section>
    </main>
  );
}
