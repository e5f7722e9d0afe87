// The page a call held for approval points at (its URL-mode elicitation): for the approvers its
// rule names, the tool, its arguments and who asks, with Approve and Deny. The decision is the
// task workflow's (it checks the approver again and keeps who decided); a call decided, expired
// or cancelled meanwhile is refused, and the page says where it now stands.
import { useEffect, useState } from 'preact/hooks';
import { connectorPath, type Api } from '../api';
import { useAction } from '../use-action';
import type { ToolApproval } from '../types';
import { ErrorNote, ViewHeading, shownTime } from './common';

const STATE_WORDS: Record<ToolApproval['state'], string> = {
  pending: 'waiting for a decision', approved: 'approved', denied: 'denied', expired: 'expired: nobody decided in time',
};

export function TaskApproval({ api, id, taskId }: { api: Api; id: string; taskId: string }) {
  const path = connectorPath(id, `/tasks/${encodeURIComponent(taskId)}/approval`);
  const [approval, setApproval] = useState<ToolApproval | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const { busy, error, run } = useAction();
  useEffect(() => {
    api.get<ToolApproval>(path).then(setApproval, setLoadError);
  }, [api, path]);
  const decide = (decision: 'approve' | 'deny') => run(async () => setApproval(await api.post<ToolApproval>(path, { decision })));
  return (
    <main id="main">
      <ViewHeading>Approve a tool call</ViewHeading>
      <ErrorNote error={loadError} />
      {approval && (
        <>
          <dl class="approval">
            <dt>Tool</dt><dd id="approval-tool"><code>{approval.tool}</code></dd>
            <dt>Asked by</dt><dd id="approval-requester">{approval.requested_by ?? 'an unauthenticated caller'}</dd>
            <dt>Asked at</dt><dd>{shownTime(approval.requested_at)}</dd>
            <dt>Status</dt><dd id="approval-state">{STATE_WORDS[approval.state]}</dd>
            {approval.decided_by && <><dt>Decided by</dt><dd id="approval-decider">{approval.decided_by} ({shownTime(approval.decided_at)})</dd></>}
            {approval.state === 'pending' && <><dt>Expires</dt><dd>{shownTime(approval.expires_at)}</dd></>}
          </dl>
          <h2>Arguments</h2>
          <pre id="approval-arguments">{JSON.stringify(approval.arguments, null, 2)}</pre>
          <ErrorNote error={error} />
          {approval.state === 'pending' && (
            <p>
              <button type="button" disabled={busy} onClick={() => void decide('approve')}>Approve</button>{' '}
              <button type="button" class="secondary" disabled={busy} onClick={() => void decide('deny')}>Deny</button>
            </p>
          )}
        </>
      )}
    </main>
  );
}
