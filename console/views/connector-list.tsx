// The connectors the caller may see (an admin: everyone's, with an owner filter), live: polled
// every 3 s, so a connect finished in another tab or a disconnect by the service shows up here.
import { useState } from 'preact/hooks';
import { query, type Api } from '../api';
import { usePolling } from '../poll';
import { hrefOf, takeNotice } from '../route';
import { reasonFor } from '../problem-words';
import type { CallerView, Connector, Page } from '../types';
import { ErrorNote, StateBadge, ViewHeading, connectorName, shownTime } from './common';

const STATES = ['created', 'connecting', 'auth_required', 'connected', 'disconnecting', 'disconnected', 'deleting'];
const PAGE_SIZE = 50;

export function ConnectorList({ api, caller }: { api: Api; caller: CallerView }) {
  const [state, setState] = useState('');
  const [owner, setOwner] = useState('');
  // Tokens of the pages before this one, to go back; the API's tokens only go forward.
  const [pages, setPages] = useState<string[]>([]);
  const [notice] = useState(takeNotice);
  const pageToken = pages[pages.length - 1];
  const list = usePolling(
    () => api.get<Page<Connector>>(`/api/v1/connectors${query({ limit: String(PAGE_SIZE), state, created_by: caller.admin ? owner.trim() : undefined, page_token: pageToken })}`),
    3000, [api, state, owner, pageToken],
  );
  const filter = (set: (v: string) => void) => (e: Event) => {
    set((e.target as HTMLInputElement).value);
    setPages([]);
  };
  return (
    <main id="main">
      <div class="heading-row">
        <ViewHeading>Connectors</ViewHeading>
        <a class="button" href={hrefOf({ view: 'new' })}>New connector</a>
      </div>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label for="state-filter">State</label>
        <select id="state-filter" value={state} onChange={filter(setState)}>
          <option value="">any</option>
          {STATES.map((s) => <option key={s} value={s}>{s}</option>)}
        </select>
        {caller.admin && caller.authenticated && (
          <>
            <label for="owner-filter">Owner</label>
            <input id="owner-filter" placeholder="key:team-a or oidc:…" value={owner} onChange={filter(setOwner)} />
          </>
        )}
      </form>
      {notice && <p class="notice" role="status">{notice}</p>}
      <ErrorNote error={list.error} />
      {list.data && <ConnectorTable items={list.data.items} showOwner={caller.admin && caller.authenticated} />}
      {list.data && (
        <nav class="pager" aria-label="Pages">
          {list.data.total_count !== undefined && <span>{list.data.total_count} in all</span>}
          <button type="button" disabled={pages.length === 0} onClick={() => setPages(pages.slice(0, -1))}>Previous page</button>
          <button type="button" disabled={!list.data.has_more} onClick={() => setPages([...pages, list.data!.next_page_token!])}>Next page</button>
        </nav>
      )}
    </main>
  );
}

function ConnectorTable({ items, showOwner }: { items: Connector[]; showOwner: boolean }) {
  if (items.length === 0) return <p class="empty">No connectors yet. <a href={hrefOf({ view: 'new' })}>Create one</a>.</p>;
  return (
    <table class="connectors">
      <caption class="visually-hidden">Connectors and their states</caption>
      <thead>
        <tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">URL</th>{showOwner && <th scope="col">Owner</th>}<th scope="col">Updated</th></tr>
      </thead>
      <tbody>
        {items.map((c) => (
          <tr key={c.id} data-connector-id={c.id}>
            <td data-label="Name"><a href={hrefOf({ view: 'connector', id: c.id })}>{connectorName(c)}</a></td>
            <td data-label="State"><StateBadge state={c.state} />{c.state === 'disconnected' && c.disconnect_reason && <span class="reason"> {reasonFor(c.disconnect_reason, showOwner)}</span>}</td>
            <td data-label="URL" class="url"><code>{c.url}</code></td>
            {showOwner && <td data-label="Owner">{c.created_by_name ?? c.created_by ?? '—'}</td>}
            <td data-label="Updated">{shownTime(c.updated_at)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
