// The toolsets the caller may see: one MCP address each for the tools of several connectors.
import { type Api } from '../api';
import { usePolling } from '../poll';
import { hrefOf, takeNotice } from '../route';
import type { Page, Toolset } from '../types';
import { useState } from 'preact/hooks';
import { ErrorNote, ViewHeading, shownTime } from './common';

export function ToolsetList({ api }: { api: Api }) {
  const [notice] = useState(takeNotice);
  const list = usePolling(() => api.get<Page<Toolset>>('/api/v1/toolsets?limit=100'), 5000, [api]);
  return (
    <main id="main">
      <div class="heading-row">
        <ViewHeading>Toolsets</ViewHeading>
        <a class="button" href={hrefOf({ view: 'new-toolset' })}>New toolset</a>
      </div>
      <p>A toolset serves the tools of several connectors at one MCP address, each tool named <code>prefix__tool</code>.</p>
      {notice && <p class="notice" role="status">{notice}</p>}
      <ErrorNote error={list.error} />
      {list.data && (list.data.items.length === 0 ? <p class="empty">No toolsets yet. <a href={hrefOf({ view: 'new-toolset' })}>Create one</a>.</p> : (
        <table class="toolsets">
          <caption class="visually-hidden">Toolsets</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">Connectors</th><th scope="col">MCP address</th><th scope="col">Updated</th></tr></thead>
          <tbody>
            {list.data.items.map((ts) => (
              <tr key={ts.id} data-toolset-id={ts.id}>
                <td data-label="Name"><a href={hrefOf({ view: 'toolset', id: ts.id })}>{ts.name}</a></td>
                <td data-label="Connectors">{ts.members.map((m) => m.prefix).join(', ')}</td>
                <td data-label="MCP address" class="url"><code>{ts.mcp_url}</code></td>
                <td data-label="Updated">{shownTime(ts.updated_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ))}
    </main>
  );
}
