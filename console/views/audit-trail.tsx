// The connector's transitions (GET /events): who moved it from which state to which, and why.
// Read again whenever the record changes (its updated_at), not on a timer of its own.
import { useEffect, useState } from 'preact/hooks';
import { connectorPath, type Api } from '../api';
import type { ConnectorEvent, Page } from '../types';
import { ErrorNote, StateBadge, authKindWords, shownTime } from './common';
import { useCaller } from '../caller-context';
import { reasonFor } from '../problem-words';

export function AuditTrail({ api, id, version, onEvents }: { api: Api; id: string; version: string; onEvents?: (events: ConnectorEvent[]) => void }) {
  const caller = useCaller();
  const [events, setEvents] = useState<ConnectorEvent[] | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let current = true;
    api.get<Page<ConnectorEvent>>(connectorPath(id, '/events?limit=100')).then(
      (page) => { if (current) { setEvents(page.items); setError(null); onEvents?.(page.items); } },
      (err) => { if (current) setError(err); },
    );
    return () => { current = false; };
  }, [api, id, version]);
  return (
    <section aria-labelledby="audit-heading">
      <h2 id="audit-heading">Audit trail</h2>
      <ErrorNote error={error} />
      {events && (
        <table class="events">
          <caption class="visually-hidden">Transitions, oldest first</caption>
          <thead><tr><th scope="col">Time</th><th scope="col">Actor</th><th scope="col">Transition</th><th scope="col">Reason</th></tr></thead>
          <tbody>
            {events.map((e) => (
              <tr key={e.seq}>
                <td data-label="Time">{shownTime(e.time)}</td>
                <td data-label="Actor">{e.actor}</td>
                <td data-label="Transition">{e.from ? <StateBadge state={e.from} /> : '—'} → <StateBadge state={e.to} />{e.protocol_version ? ` (MCP ${e.protocol_version})` : ''}{e.auth_kind ? `, with ${authKindWords(e.auth_kind)}` : ''}</td>
                <td data-label="Reason">{e.reason ? reasonFor(e.reason, caller.admin && caller.authenticated) : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
