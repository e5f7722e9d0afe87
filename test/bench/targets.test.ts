// The judging of issue 42's targets (bench/targets.ts): direction and threshold, the figures a
// line quotes, and NOT MEASURED wherever a figure is missing instead of a verdict on nothing.
import test from 'ava';
import { benchTargetLines, judge, ratioOf, TARGETS, targetLine, type Figures, type IssueTarget } from '../../bench/targets';

const target = (id: string) => TARGETS.find((t) => t.id === id)!;
const figuresOf = (table: Record<string, number>): Figures => (path) => table[path];

test('a target passes on its side of the threshold, the threshold included, and fails on the other', (t) => {
  const cases: [string, IssueTarget['direction'], number[], number[]][] = [
    ['42.2a', 'at most', [1.2, 0.9], [1.21]],
    ['42.1a', 'at least', [1, 1.4], [0.99]],
  ];
  for (const [id, direction, passing, failing] of cases) {
    t.is(target(id).direction, direction);
    for (const ratio of passing) t.is(judge(target(id), ratio), 'PASS', `${id} at ${ratio}`);
    for (const ratio of failing) t.is(judge(target(id), ratio), 'FAIL', `${id} at ${ratio}`);
  }
});

test('a missing or unusable figure is NOT MEASURED, never a verdict', (t) => {
  const cpu = target('42.1b');
  t.is(ratioOf(cpu, figuresOf({ 'embedded-key': 300 })), undefined);
  t.is(ratioOf(cpu, figuresOf({ 'embedded-key': 300, 'go-relay': 0 })), undefined);
  t.is(ratioOf(cpu, figuresOf({ 'embedded-key': Number.NaN, 'go-relay': 100 })), undefined);
  t.is(judge(cpu, undefined), 'NOT MEASURED');
  t.is(judge(cpu, Number.NaN), 'NOT MEASURED');
  t.is(targetLine(cpu, figuresOf({ 'go-relay': 100 })), 'TARGET 42.1b CPU per request, embedded stack (npm start, API key) / Go relay (mcp-go): (<= 1) NOT MEASURED (no CPU µs/req of embedded-key measured here)');
});

test('a line quotes the ratio of the two paths of the same run and both figures', (t) => {
  const line = targetLine(target('42.2b'), figuresOf({ 'proxy-jwt': 330, floor: 220 }));
  t.is(line, 'TARGET 42.2b CPU per request, proxy role (JWT) / floor (node:http + http-proxy): 1.50× (330 / 220 CPU µs/req) (<= 1.2) FAIL');
});

test('the figure asked for is the target\'s own', (t) => {
  const asked: string[] = [];
  const figures: Figures = (path, figure) => { asked.push(`${path} ${figure}`); return figure === 'req/s' ? 1000 : 50; };
  t.is(ratioOf(target('42.1a'), figures), 1);
  t.deepEqual(asked, ['embedded-key req/s', 'go-relay req/s']);
});

test('each bench prints exactly the targets it measures', (t) => {
  const lines = benchTargetLines('toolset', figuresOf({ toolset: 1200, 'member path': 1000 }));
  t.deepEqual(lines, ['TARGET 42.4 CPU per call, toolset / member\'s own MCP path: 1.20× (1200 / 1000 CPU µs/call) (<= 1.3) PASS']);
  const proxy = benchTargetLines('proxy', () => undefined);
  t.deepEqual(proxy.map((l) => l.split(' ')[1]), ['42.1a', '42.1b', '42.2a', '42.2b']);
  t.true(proxy.every((l) => l.endsWith('measured here)')));
});

test('the declared targets have distinct ids and a positive threshold each', (t) => {
  const ids = TARGETS.map((x: IssueTarget) => x.id);
  t.is(new Set(ids).size, ids.length);
  t.true(TARGETS.every((x) => x.threshold > 0 && x.of !== x.to));
});
