// Approval rules (contract/approvals.ts) and CONNECTOR__APPROVAL_TOOLS: the first rule naming a
// tool holds it; approvers are named by key:, oidc: or role: (globs allowed), never by a bare
// subject; a rule's own timeout wins over the default; a malformed value stops start-up.
import test from 'ava';
import { approvalRuleOf, heldBy, isApprover } from '../../contract/approval-policy';
import { loadConfig } from '../../config/config';

test('the first rule naming the tool holds it; an unnamed tool is not held', (t) => {
  const rules = [{ tools: 'delete_*', approvers: ['key:ann'] }, { tools: '*', approvers: ['role:ops'] }];
  t.deepEqual(approvalRuleOf(rules, 'delete_repo')?.approvers, ['key:ann']);
  t.deepEqual(approvalRuleOf(rules, 'read')?.approvers, ['role:ops']);
  t.is(approvalRuleOf(rules.slice(0, 1), 'read'), undefined);
});

test('approvers are named by qualified subject or role, never by a look-alike', (t) => {
  t.true(isApprover(['key:ann'], { subject: 'key:ann' }));
  t.false(isApprover(['key:ann'], { subject: 'oidc:ann' }), 'an identity-provider user named like a key is not the key');
  t.true(isApprover(['oidc:*@example.com'], { subject: 'oidc:bo@example.com' }));
  t.true(isApprover(['role:ops'], { subject: 'oidc:x', roles: ['ops'] }));
  t.false(isApprover(['role:ops'], { subject: 'role:ops' }), 'a subject is never a role');
  t.false(isApprover(['key:*'], { subject: null }), 'an unauthenticated caller is no one');
});

test('CONNECTOR__APPROVAL_TOOLS: each rule waits its own time, else CONNECTOR__APPROVAL_TIMEOUT_SECONDS (three days by default)', (t) => {
  const rules = [{ tools: 'a', approvers: ['key:ann'], timeout_seconds: 60 }, { tools: 'b', approvers: ['role:ops'] }];
  t.deepEqual(loadConfig({ CONNECTOR__APPROVAL_TOOLS: JSON.stringify(rules) }).tasks.approvals.map((r) => r.timeoutMs), [60_000, 3 * 86_400_000]);
  t.deepEqual(loadConfig({ CONNECTOR__APPROVAL_TOOLS: JSON.stringify(rules), CONNECTOR__APPROVAL_TIMEOUT_SECONDS: '30' }).tasks.approvals.map((r) => r.timeoutMs), [60_000, 30_000]);
  t.deepEqual(loadConfig({}).tasks.approvals, []);
});

test('a malformed CONNECTOR__APPROVAL_TOOLS stops start-up naming it', (t) => {
  for (const value of ['not json', '[{"tools":"a","approvers":["ann"]}]', '[{"tools":"a","approvers":[]}]', '[{"tools":"a"}]']) {
    t.throws(() => loadConfig({ CONNECTOR__APPROVAL_TOOLS: value }), { message: /CONNECTOR__APPROVAL_TOOLS/ }, value);
  }
});

test("heldBy: the operator's rules first, then the connector's, then a toolset's over its own names; an owner's rule waits its own time, else the default", (t) => {
  const operator = [{ tools: 'delete_*', approvers: ['key:ann'], timeoutMs: 5000 }];
  const connector = [{ tools: 'delete_*', approvers: ['key:carl'] }, { tools: 'send', approvers: ['key:carl'], timeout_seconds: 60 }];
  const toolset = [{ tools: 'm__read', approvers: ['role:ops'] }];
  const sources = (tool: string) => [{ rules: operator, tool }, { rules: connector, tool }, { rules: toolset, tool: `m__${tool}` }];
  t.like(heldBy(sources('delete_repo'), 1000), { approvers: ['key:ann'], timeoutMs: 5000 }, 'an owner cannot loosen the operator');
  t.like(heldBy(sources('send'), 1000), { approvers: ['key:carl'], timeoutMs: 60_000 });
  t.like(heldBy(sources('read'), 1000), { approvers: ['role:ops'], timeoutMs: 1000 });
  t.is(heldBy(sources('list'), 1000), undefined);
  t.is(heldBy([{ rules: undefined, tool: 'send' }], 1000), undefined, 'a connector without rules holds nothing');
});
