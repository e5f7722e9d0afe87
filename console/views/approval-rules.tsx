// The owner's approval rules of a connector or a toolset: shown, edited as a draft (add, change,
// remove rows) and saved whole with one PATCH (the API replaces the list; none left sends null).
// The service's problem details of a bad rule are shown beside the form; after a save the
// record's answer is what is shown.
import { useState } from 'preact/hooks';
import type { Api } from '../api';
import { useAction } from '../use-action';
import type { Connector } from '../types';
import { ErrorNote } from './common';

type Rule = Connector['approval_rules'][number];
interface Row { tools: string; approvers: string; timeout: string }

const toRow = (r: Rule): Row => ({ tools: r.tools, approvers: r.approvers.join(', '), timeout: r.timeout_seconds === undefined ? '' : String(r.timeout_seconds) });

// Sent as typed: the service, not the console, judges a rule (and says why in a 422).
const toRule = (row: Row): Rule => ({
  tools: row.tools.trim(),
  approvers: row.approvers.split(',').map((a) => a.trim()).filter(Boolean),
  ...(row.timeout.trim() ? { timeout_seconds: Number(row.timeout) } : {}),
});

export function ApprovalRules<T extends { approval_rules?: Rule[] }>({ api, path, rules, onSaved }: { api: Api; path: string; rules: Rule[] | undefined; onSaved: (record: T) => void }) {
  const action = useAction();
  const [draft, setDraftRows] = useState<Row[] | null>(null);
  const [saved, setSaved] = useState(false);
  const setDraft = (next: Row[] | null) => { setSaved(false); setDraftRows(next); };
  const rows = draft ?? (rules ?? []).map(toRow);
  const change = (i: number, field: keyof Row, value: string) => setDraft(rows.map((r, j) => (j === i ? { ...r, [field]: value } : r)));
  const save = () => void action.run(async () => {
    const answer = await api.patch<T>(path, { approval_rules: rows.length ? rows.map(toRule) : null });
    setDraftRows(null);
    setSaved(true);
    onSaved(answer);
  });
  return (
    <section aria-labelledby="approval-rules-heading">
      <h2 id="approval-rules-heading">Approval rules</h2>
      <p>Calls of the tools a rule matches (a glob; first match wins) wait for one of its approvers: <code>key:&lt;id&gt;</code>, <code>oidc:&lt;subject&gt;</code> or <code>role:&lt;name&gt;</code>.</p>
      {rows.length === 0 && <p id="no-approval-rules">No approval rules.</p>}
      <form onSubmit={(e) => { e.preventDefault(); save(); }}>
        {rows.map((row, i) => (
          <fieldset key={i} class="approval-rule">
            <legend>Rule {i + 1}</legend>
            <label>Tools (glob) <input name="tools" value={row.tools} required onInput={(e) => change(i, 'tools', e.currentTarget.value)} /></label>
            <label>Approvers (comma-separated) <input name="approvers" value={row.approvers} onInput={(e) => change(i, 'approvers', e.currentTarget.value)} /></label>
            <label>Timeout (seconds, optional) <input name="timeout_seconds" type="number" min="1" value={row.timeout} onInput={(e) => change(i, 'timeout', e.currentTarget.value)} /></label>
            <button type="button" class="secondary" aria-label={`Remove rule ${i + 1}`} disabled={action.busy} onClick={() => setDraft(rows.filter((_, j) => j !== i))}>Remove</button>
          </fieldset>
        ))}
        <div class="actions">
          <button type="button" class="secondary" disabled={action.busy} onClick={() => setDraft([...rows, { tools: '', approvers: '', timeout: '' }])}>Add rule</button>
          <button type="submit" disabled={action.busy || draft === null}>Save approval rules</button>
          {draft !== null && <button type="button" class="secondary" disabled={action.busy} onClick={() => setDraft(null)}>Discard changes</button>}
        </div>
        {saved && <p role="status" id="approval-rules-saved">Approval rules saved.</p>}
        <ErrorNote error={action.error} />
      </form>
    </section>
  );
}
