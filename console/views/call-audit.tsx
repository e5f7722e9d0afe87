// The per-call audit of a connector's MCP traffic (GET /calls), newest first, with the API's
// filters: time range, JSON-RPC method, HTTP status or class, errors only. Never arguments or
// results: the service does not keep them.
import { useState } from 'preact/hooks';
import { connectorPath, query, type Api } from '../api';
import { usePolling } from '../poll';
import { hrefOf } from '../route';
import type { Call, Page } from '../types';
import { ErrorNote, ViewHeading, shownTime } from './common';

interface Filters {
  since: string;
  until: string;
  method: string;
  status: string;
  errorsOnly: boolean;
}

const EMPTY: Filters = { since: '', until: '', method: '', status: '', errorsOnly: false };
// <input type="datetime-local"> gives local wall time; the API takes RFC 3339.
const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);

export function CallAudit({ api, id }: { api: Api; id: string }) {
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [applied, setApplied] = useState<Filters>(EMPTY);
  const [pages, setPages] = useState<string[]>([]);
  const pageToken = pages[pages.length - 1];
  const calls = usePolling(() => api.get<Page<Call>>(connectorPath(id, `/calls${query({
    limit: '50', since: instant(applied.since), until: instant(applied.until), method: applied.method.trim(),
    status: applied.status.trim(), error: applied.errorsOnly ? 'true' : undefined, page_token: pageToken,
  })}`)), 5000, [api, id, applied, pageToken]);
  const set = (name: keyof Filters) => (e: Event) => {
    const input = e.target as HTMLInputElement;
    setDraft({ ...draft, [name]: input.type === 'checkbox' ? input.checked : input.value });
  };
  return (
    <main id="main">
      <p><a href={hrefOf({ view: 'connector', id })}>← Connector</a></p>
      <ViewHeading>MCP calls</ViewHeading>
      <form class="filters card" onSubmit={(e) => { e.preventDefault(); setApplied(draft); setPages([]); }}>
        <label for="since">Since</label><input id="since" type="datetime-local" value={draft.since} onInput={set('since')} />
        <label for="until">Until</label><input id="until" type="datetime-local" value={draft.until} onInput={set('until')} />
        <label for="method">Method</label><input id="method" placeholder="tools/call" value={draft.method} onInput={set('method')} />
        <label for="status">HTTP status</label><input id="status" placeholder="404 or 5xx" pattern="[1-5](\d\d|xx)" value={draft.status} onInput={set('status')} />
        <label class="inline"><input type="checkbox" checked={draft.errorsOnly} onChange={set('errorsOnly')} /> Errors only</label>
        <button type="submit">Apply filters</button>
      </form>
      <ErrorNote error={calls.error} />
      {calls.data && (calls.data.items.length === 0 ? <p class="empty">No calls match.</p> : <CallTable items={calls.data.items} />)}
      {calls.data && (
        <nav class="pager" aria-label="Pages">
          <button type="button" disabled={pages.length === 0} onClick={() => setPages(pages.slice(0, -1))}>Newer calls</button>
          <button type="button" disabled={!calls.data.has_more} onClick={() => setPages([...pages, calls.data!.next_page_token!])}>Older calls</button>
        </nav>
      )}
    </main>
  );
}

export function CallTable({ items }: { items: Call[] }) {
  return (
    <table class="calls">
      <caption class="visually-hidden">MCP calls, newest first</caption>
      <thead>
        <tr><th scope="col">Time</th><th scope="col">Caller</th><th scope="col">Method</th><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Duration</th><th scope="col">Bytes in/out</th></tr>
      </thead>
      <tbody>
        {items.map((c) => (c.task ? <TaskRow key={c.id} call={c} task={c.task} /> : (
          <tr key={c.id} class={(c.status ?? 0) >= 400 || c.rpc_error_code !== null ? 'failed' : ''}>
            <td data-label="Time">{shownTime(c.time)}</td>
            <td data-label="Caller">{c.caller ?? '—'}</td>
            <td data-label="Method"><code>{c.rpc_method ?? c.http_method}</code>{c.task_id ? <> → task <code title="task id">{c.task_id}</code></> : null}</td>
            <td data-label="Name">{c.rpc_name ?? ''}</td>
            <td data-label="Status">{c.status ?? 'aborted'}{c.rpc_error_code !== null ? ` (JSON-RPC ${c.rpc_error_code})` : ''}</td>
            <td data-label="Duration">{Math.round(c.duration_ms)} ms</td>
            <td data-label="Bytes in/out">{c.request_bytes} / {c.response_bytes}</td>
          </tr>
        )))}
      </tbody>
    </table>
  );
}

const APPROVAL_WORDS: Record<string, string> = { pending: 'held for approval', approved: 'approved', denied: 'denied', expired: 'approval expired' };

/** A task's change of status: no request, so no HTTP status, duration or bytes; who made it, and how. */
function TaskRow({ call, task }: { call: Call; task: NonNullable<Call['task']> }) {
  const how = [task.approval && APPROVAL_WORDS[task.approval], task.by && `by ${task.by}`, task.unknown_outcome && 'outcome unknown', task.observed && "as the server's answer showed it", task.skipped && `${task.skipped} earlier changes never recorded`].filter(Boolean).join(', ');
  return (
    <tr class={task.status === 'failed' ? 'failed task' : 'task'}>
      <td data-label="Time">{shownTime(call.time)}</td>
      <td data-label="Caller">{call.caller ?? '—'}</td>
      <td data-label="Method"><code>{call.rpc_method}</code> task <code title="task id">{task.task_id}</code></td>
      <td data-label="Name">{call.rpc_name ?? ''}</td>
      <td data-label="Status">{task.status.replace('_', ' ')}{how ? ` (${how})` : ''}</td>
      <td data-label="Duration">—</td>
      <td data-label="Bytes in/out">—</td>
    </tr>
  );
}
