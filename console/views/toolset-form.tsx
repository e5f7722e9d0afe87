// A toolset's settings, to create one or change it: its name and description, its members (the
// caller's connectors, each with a prefix and allow/deny patterns over its own tool names) and its
// access rules (who besides the owner may use which prefixed tools).
import { useEffect, useState } from 'preact/hooks';
import type { Api } from '../api';
import { useAction } from '../use-action';
import type { Connector, CreateToolsetRequest, Page, Toolset } from '../types';
import { ErrorNote, connectorName } from './common';

interface MemberDraft { on: boolean; prefix: string; allow: string; deny: string }
interface RuleDraft { callers: string; allow: string }

const list = (text: string) => text.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);

export function ToolsetForm({ api, initial, onSaved }: { api: Api; initial?: Toolset; onSaved: (saved: Toolset) => void }) {
  const [connectors, setConnectors] = useState<Connector[] | undefined>(undefined);
  const [name, setName] = useState(initial?.name ?? '');
  const [description, setDescription] = useState(initial?.description ?? '');
  const [members, setMembers] = useState<Record<string, MemberDraft>>(() => Object.fromEntries((initial?.members ?? []).map((m) => [m.connector_id,
    { on: true, prefix: m.prefix, allow: m.tools.allow.join(', '), deny: m.tools.deny.join(', ') }])));
  const [rules, setRules] = useState<RuleDraft[]>(() => (initial?.access ?? []).map((r) => ({ callers: r.callers.join(', '), allow: r.allow.join(', ') })));
  const save = useAction();
  useEffect(() => { api.get<Page<Connector>>('/api/v1/connectors?limit=100').then((p) => setConnectors(p.items), () => setConnectors([])); }, [api]);
  const member = (id: string): MemberDraft => members[id] ?? { on: false, prefix: '', allow: '', deny: '' };
  const setMember = (id: string, change: Partial<MemberDraft>) => setMembers({ ...members, [id]: { ...member(id), ...change } });
  const submit = (e: Event) => {
    e.preventDefault();
    void save.run(async () => {
      const body: CreateToolsetRequest = {
        name: name.trim(), description: description.trim(),
        members: Object.entries(members).filter(([, m]) => m.on).map(([connector_id, m]) => ({
          connector_id, ...(m.prefix.trim() ? { prefix: m.prefix.trim() } : {}),
          tools: { ...(list(m.allow).length ? { allow: list(m.allow) } : {}), deny: list(m.deny) },
        })),
        access: rules.filter((r) => list(r.callers).length).map((r) => ({ callers: list(r.callers), allow: list(r.allow) })),
      };
      onSaved(initial ? await api.patch<Toolset>(`/api/v1/toolsets/${encodeURIComponent(initial.id)}`, body) : await api.post<Toolset>('/api/v1/toolsets', body));
    });
  };
  return (
    <form class="card toolset-form" onSubmit={submit}>
      <label for="toolset-name">Name</label>
      <input id="toolset-name" required maxLength={128} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      <label for="toolset-description">Description <span class="hint">(optional)</span></label>
      <input id="toolset-description" value={description} onInput={(e) => setDescription((e.target as HTMLInputElement).value)} />
      <fieldset>
        <legend>Connectors</legend>
        {connectors === undefined ? <p>Loading…</p> : connectors.length === 0 ? <p class="empty">You have no connectors yet.</p> : connectors.map((c) => (
          <div class="member" key={c.id} data-member-id={c.id}>
            <label class="inline"><input type="checkbox" checked={member(c.id).on} onChange={(e) => setMember(c.id, { on: (e.target as HTMLInputElement).checked })} /> {connectorName(c)}</label>
            {member(c.id).on && (
              <div class="member-settings">
                <label for={`prefix-${c.id}`}>Prefix of {connectorName(c)} <span class="hint">(optional; from its name otherwise)</span></label>
                <input id={`prefix-${c.id}`} pattern="[a-z0-9_\-]{1,32}" value={member(c.id).prefix} onInput={(e) => setMember(c.id, { prefix: (e.target as HTMLInputElement).value })} />
                <label for={`allow-${c.id}`}>Only these tools of {connectorName(c)} <span class="hint">(patterns such as <code>get_*</code>; empty: all)</span></label>
                <input id={`allow-${c.id}`} value={member(c.id).allow} onInput={(e) => setMember(c.id, { allow: (e.target as HTMLInputElement).value })} />
                <label for={`deny-${c.id}`}>Never these tools of {connectorName(c)}</label>
                <input id={`deny-${c.id}`} value={member(c.id).deny} onInput={(e) => setMember(c.id, { deny: (e.target as HTMLInputElement).value })} />
              </div>
            )}
          </div>
        ))}
      </fieldset>
      <fieldset>
        <legend>Who else may use it <span class="hint">(you and admins may use every tool)</span></legend>
        {rules.map((rule, i) => (
          <div class="rule" key={i}>
            <label for={`rule-callers-${i}`}>Callers of rule {i + 1} <span class="hint">(<code>key:team-a</code>, <code>role:analyst</code>, <code>oidc:*</code>)</span></label>
            <input id={`rule-callers-${i}`} value={rule.callers} onInput={(e) => setRules(rules.map((r, j) => (j === i ? { ...r, callers: (e.target as HTMLInputElement).value } : r)))} />
            <label for={`rule-allow-${i}`}>Tools of rule {i + 1} <span class="hint">(prefixed names or patterns, e.g. <code>docs__*</code>)</span></label>
            <input id={`rule-allow-${i}`} value={rule.allow} onInput={(e) => setRules(rules.map((r, j) => (j === i ? { ...r, allow: (e.target as HTMLInputElement).value } : r)))} />
            <button type="button" class="secondary" onClick={() => setRules(rules.filter((_, j) => j !== i))}>Remove rule {i + 1}</button>
          </div>
        ))}
        <button type="button" class="secondary" onClick={() => setRules([...rules, { callers: '', allow: '' }])}>Add an access rule</button>
      </fieldset>
      <button type="submit" disabled={save.busy}>{initial ? 'Save the toolset' : 'Create the toolset'}</button>
      <ErrorNote error={save.error} />
    </form>
  );
}
