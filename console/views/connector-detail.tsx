// One connector, live (polled every 2 s, and shown at once from an action's own answer): its
// record, how to use it (its MCP address, client configurations), its tools with a form to call
// one, the actions its state allows, its audit trail, and a link to its MCP calls. Delete returns
// to the list, saying so.
import { useState } from 'preact/hooks';
import { ApiError, connectorPath, type Api } from '../api';
import { usePolling } from '../poll';
import { useAction } from '../use-action';
import { go, hrefOf } from '../route';
import type { Connector } from '../types';
import { AuditTrail } from './audit-trail';
import { TaskList } from './task-list';
import { ClientConfig } from './client-config';
import { ConnectForm } from './connect-form';
import { ErrorNote, StateBadge, ViewHeading, authKindWords, connectorName, shownTime, tokenBindingWords } from './common';
import { ToolsPanel } from './tools-panel';
import { ApprovalRules } from './approval-rules';
import { useCaller } from '../caller-context';
import { reasonFor } from '../problem-words';

// `disconnected` is accepted by the API (no change), but a button that changes nothing misleads.
const DISCONNECTABLE = new Set(['connected', 'auth_required', 'connecting']);

export function ConnectorDetail({ api, id }: { api: Api; id: string }) {
  const caller = useCaller();
  const record = usePolling(() => api.get<Connector>(connectorPath(id)), 2000, [api, id]);
  const action = useAction();
  const [oauth, setOauth] = useState(false);
  // An action's answer is the record as it now is: shown at once, then read again.
  const act = (run: () => Promise<Connector | undefined>) => action.run(async () => {
    const answer = await run();
    if (answer?.id === id) record.set(answer);
    void record.refresh();
  });
  const busy = action.busy;
  const back = <p><a href={hrefOf({ view: 'list' })}>← Connectors</a></p>;
  if (record.error instanceof ApiError && record.error.status === 404) {
    return <main id="main">{back}<ViewHeading>Connector not found</ViewHeading><p role="status">No connector <code>{id}</code> is visible to you: it was deleted, or never existed.</p></main>;
  }
  const c = record.data;
  if (!c) return <main id="main">{back}<ViewHeading>Connector</ViewHeading><ErrorNote error={record.error} /><p>Loading…</p></main>;
  const remove = () => {
    if (!confirm(`Delete the connector “${connectorName(c)}”? Its tokens are revoked and its record removed.`)) return;
    void action.run(async () => {
      await api.delete(connectorPath(id));
      go({ view: 'list' }, `Deleting “${connectorName(c)}”: it leaves the list once its teardown is done.`);
    });
  };
  return (
    <main id="main">
      {back}
      <ViewHeading>{connectorName(c)}</ViewHeading>
      <p class="status-line" aria-live="polite">State: <StateBadge state={c.state} /></p>
      <dl class="record">
        <dt>URL</dt><dd><code>{c.url}</code></dd>
        {c.metadata.description && <><dt>Description</dt><dd>{c.metadata.description}</dd></>}
        {c.disconnect_reason && <><dt>Disconnect reason</dt><dd class="reason">{reasonFor(c.disconnect_reason, caller.admin && caller.authenticated)}{c.disconnect_permanent === false ? ' (the service retries by itself)' : ''}</dd></>}
        {c.protocol_version && <><dt>MCP revision</dt><dd>{c.protocol_version}</dd></>}
        {c.auth_kind && <><dt>Authentication</dt><dd id="auth-kind" data-kind={c.auth_kind}>{authKindWords(c.auth_kind)}</dd></>}
        {c.auth_kind && c.auth_kind !== 'none' && <><dt>Token binding</dt><dd id="token-binding" data-binding={c.token_binding ?? 'bearer'}>{tokenBindingWords(c.token_binding)}</dd></>}
        {c.transport === 'sse' && <><dt>Transport</dt><dd>HTTP+SSE (2024-11-05), served to clients as Streamable HTTP</dd></>}
        {c.preset && <><dt>Preset</dt><dd><code>{c.preset.url}</code></dd></>}
        {c.variables && <><dt>URL variables</dt><dd>{Object.entries(c.variables).map(([k, v]) => `${k}=${v}`).join(', ')}</dd></>}
        {c.headers && <><dt>Headers</dt><dd>{c.headers.join(', ')} <small>(values never shown)</small></dd></>}
        <dt>Owner</dt><dd>{c.created_by_name ?? c.created_by ?? '—'}</dd>
        <dt>Created</dt><dd>{shownTime(c.created_at)}</dd>
        <dt>Updated</dt><dd>{shownTime(c.updated_at)}</dd>
        <dt>Id</dt><dd><code>{c.id}</code></dd>
      </dl>
      {c.state === 'auth_required' && c.auth_request?.type === 'assertion' && (
        <p class="notice" id="assertion-needed">A fresh sign-in is needed: {c.auth_request.message}.</p>
      )}
      {c.state === 'auth_required' && c.auth_request?.type === 'code' && (
        <p class="notice">
          The MCP server asks for authorization.{' '}
          <a id="authorize-link" href={c.auth_request.authorization_endpoint} target="_blank" rel="noopener noreferrer">Open the authorization page</a>{' '}
          (a new tab; this page follows the outcome). Valid until {shownTime(c.auth_request.expires_at)}.
        </p>
      )}
      <section aria-labelledby="actions-heading">
        <h2 id="actions-heading">Actions</h2>
        <ConnectForm api={api} connector={c} oauth={oauth} busy={busy} error={action.error} act={act} />
        <div class="actions">
          <button type="button" disabled={busy || !DISCONNECTABLE.has(c.state)} onClick={() => void act(() => api.post<Connector>(connectorPath(id, '/disconnect')))}>Disconnect</button>
          <button type="button" class="danger" disabled={busy || c.state === 'deleting'} onClick={remove}>Delete</button>
          <a class="button secondary" href={hrefOf({ view: 'calls', id })}>MCP calls</a>
        </div>
        <ErrorNote error={action.error} />
      </section>
      <ApprovalRules<Connector> api={api} path={connectorPath(id)} rules={c.approval_rules} onSaved={(answer) => { record.set(answer); void record.refresh(); }} />
      <ClientConfig mcpUrl={c.mcp_url} name={connectorName(c)} />
      <ToolsPanel mcpUrl={c.mcp_url} authorization={api.authorization} ready={c.state === 'connected'} />
      <TaskList api={api} path={connectorPath(id, '/tasks')} version={c.updated_at} connectorId={id} />
      <AuditTrail api={api} id={id} version={c.updated_at} onEvents={(events) => setOauth(events.some((e) => e.to === 'auth_required'))} />
    </main>
  );
}
