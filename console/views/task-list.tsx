// The tasks the service runs for the callers of a connector or of a toolset (GET …/tasks, MCP
// Tasks): who started each, the tool (and on a connector's page, the toolset it came through), where it stands. Never its arguments or result, which are its caller's alone.
// Read again when the record changes and on "Refresh"; shown only once there is a task to show.
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api';
import { hrefOf } from '../route';
import type { ConnectorTask, Page } from '../types';
import { ErrorNote, shownTime } from './common';

const STATUS_WORDS: Record<ConnectorTask['status'], string> = {
  working: 'working', input_required: 'waiting for its client', completed: 'completed', failed: 'failed', cancelled: 'cancelled',
};

/** A held call waits for its approver, not its client; who decided stays beside the status. */
function statusWords(task: ConnectorTask): string {
  const { approval } = task;
  if (approval?.state === 'pending' && task.status === 'input_required') return 'waiting for approval';
  const words = STATUS_WORDS[task.status];
  return approval?.decided_by ? `${words} (${approval.state} by ${approval.decided_by})` : approval?.state === 'expired' ? `${words} (approval expired)` : words;
}

/** `path`: the list's path (`connectorPath(id, '/tasks')` or `toolsetPath(id, '/tasks')`); `connectorId` on a connector's page (its held calls link their approval page). */
export function TaskList({ api, path, version, connectorId }: { api: Api; path: string; version: string; connectorId?: string }) {
  const [tasks, setTasks] = useState<ConnectorTask[] | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [reads, setReads] = useState(0);
  useEffect(() => {
    let current = true;
    api.get<Page<ConnectorTask>>(`${path}?limit=50`).then(
      (page) => { if (current) { setTasks(page.items); setError(null); } },
      (err) => { if (current) setError(err); },
    );
    return () => { current = false; };
  }, [api, path, version, reads]);
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
                <td data-label="Tool"><code>{task.tool}</code>{task.toolset_id ? <> (through a toolset)</> : null}</td>
                <td data-label="Status">
                  {statusWords(task)}{task.unknown_outcome ? ' (outcome unknown: its worker stopped mid-call)' : ''}
                  {connectorId && task.approval?.state === 'pending' && <> (<a href={hrefOf({ view: 'task-approval', id: connectorId, taskId: task.task_id })}>approval page</a>)</>}
                </td>
                <td data-label="Updated">{shownTime(task.updated_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
