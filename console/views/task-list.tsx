// The tasks the service runs for the connector's callers (GET /tasks, MCP Tasks): who started
// each, the tool, where it stands. Never its arguments or result, which are its caller's alone.
// Read again when the record changes and on "Refresh"; shown only once there is a task to show.
import { useEffect, useState } from 'preact/hooks';
import { connectorPath, type Api } from '../api';
import type { ConnectorTask, Page } from '../types';
import { ErrorNote, shownTime } from './common';

const STATUS_WORDS: Record<ConnectorTask['status'], string> = {
  working: 'working', input_required: 'waiting for its client', completed: 'completed', failed: 'failed', cancelled: 'cancelled',
};

export function TaskList({ api, id, version }: { api: Api; id: string; version: string }) {
  const [tasks, setTasks] = useState<ConnectorTask[] | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [reads, setReads] = useState(0);
  useEffect(() => {
    let current = true;
    api.get<Page<ConnectorTask>>(connectorPath(id, '/tasks?limit=50')).then(
      (page) => { if (current) { setTasks(page.items); setError(null); } },
      (err) => { if (current) setError(err); },
    );
    return () => { current = false; };
  }, [api, id, version, reads]);
  if (!error && !tasks?.length) return null;
  return (
    <section aria-labelledby="tasks-heading">
      <h2 id="tasks-heading">Tasks</h2>
      <ErrorNote error={error} />
      <button type="button" class="secondary" onClick={() => setReads(reads + 1)}>Refresh</button>
      {tasks && (
        <table class="tasks">
          <caption class="visually-hidden">Tasks, newest first</caption>
          <thead><tr><th scope="col">Started</th><th scope="col">Caller</th><th scope="col">Tool</th><th scope="col">Status</th><th scope="col">Updated</th></tr></thead>
          <tbody>
            {tasks.map((task) => (
              <tr key={task.task_id}>
                <td data-label="Started">{shownTime(task.created_at)}</td>
                <td data-label="Caller">{task.caller ?? '—'}</td>
                <td data-label="Tool"><code>{task.tool}</code></td>
                <td data-label="Status">{STATUS_WORDS[task.status]}{task.unknown_outcome ? ' (outcome unknown: its worker stopped mid-call)' : ''}</td>
                <td data-label="Updated">{shownTime(task.updated_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
