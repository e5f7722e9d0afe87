import { randomUUID } from 'node:crypto';
import test from 'ava';
import { connectorLabelValue, workloadName, workloadTarget } from '../../activities/workloads/kube-names';

const DNS_1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

test('a UUID connector id gives mcp-<id>, its own label value and an in-cluster target', (t) => {
  const id = randomUUID();
  t.is(workloadName(id), `mcp-${id}`);
  t.is(connectorLabelValue(id), id);
  t.is(workloadTarget(id, 'connectors'), `http://mcp-${id}.connectors.svc:8080/mcp`);
});

test('any other id still gives a DNS-safe name of at most 63 characters, distinct per id', (t) => {
  const ids = ['Upper_Case.ID', 'upper_case.id', 'x'.repeat(200), `${'x'.repeat(200)}y`, '---', 'ünïcödé'];
  const names = ids.map(workloadName);
  for (const name of names) {
    t.regex(name, DNS_1035);
    t.true(name.length <= 63, name);
  }
  t.is(new Set(names).size, ids.length);
  for (const id of ids) t.regex(connectorLabelValue(id), /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/);
});
