// The judging of issue 42's targets (bench/targets.ts): direction and threshold, the figures a
// line quotes, and NOT MEASURED wherever a figure is missing instead of a verdict on nothing.
import test from 'ava';
import { benchTargetLines, judge, ratioOf, TARGETS, targetLine, valueOf, type Figures, type IssueTarget } from '../../bench/targets';

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

test('a target bounded by the floor says what the floor alone scores, and when that alone misses the threshold', (t) => {
  const cpu = target('42.1b');
  t.is(targetLine(cpu, figuresOf({ 'embedded-key': 300, 'go-relay': 100, floor: 105 })),
    'TARGET 42.1b CPU per request, embedded stack (npm start, API key) / Go relay (mcp-go): 3.00× (300 / 100 CPU µs/req) (<= 1) FAIL (the floor alone, node:http + http-proxy and nothing else, is 1.05×: out of reach in this run)');
  t.true(targetLine(cpu, figuresOf({ 'embedded-key': 300, 'go-relay': 100, floor: 96 })).endsWith('FAIL (the floor alone, node:http + http-proxy and nothing else, is 0.96×)'));
  const throughput = target('42.1a');
  t.true(targetLine(throughput, figuresOf({ 'embedded-key': 2000, 'go-relay': 4000, floor: 3900 })).endsWith('FAIL (the floor alone, node:http + http-proxy and nothing else, is 0.97×: out of reach in this run)'));
  t.true(targetLine(cpu, figuresOf({ 'embedded-key': 300, 'go-relay': 100 })).endsWith('(<= 1) FAIL'), 'no floor measured: nothing said of it');
  t.true(targetLine(target('42.2a'), figuresOf({ 'proxy-key': 300, floor: 200 })).endsWith('(<= 1.2) FAIL'), 'a target without a bound');
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
  const proxy = benchTargetLines('proxy', () => undefined, { part: 'load' });
  t.deepEqual(proxy.map((l) => l.split(' ')[1]), ['42.1a', '42.1b', '42.2a', '42.2b']);
  t.true(proxy.every((l) => l.endsWith('measured here)')));
  const ids = (bench: IssueTarget['bench'], part?: string) => benchTargetLines(bench, () => undefined, { part }).map((l) => l.split(' ')[1]);
  t.deepEqual(ids('proxy', 'one at a time'), ['42.2c', '42.2d']);
  t.deepEqual(ids('proxy', 'after idle'), ['42.1c', '42.1d']);
  t.deepEqual(ids('proxy', 'sse streams'), ['42.5a', '42.5b', '42.5c']);
  t.deepEqual(ids('lifecycle'), ['42.3a', '42.3b', '42.3c']);
  t.deepEqual(ids('scale'), ['42.6a', '42.6b', '42.6c', '42.6d']);
});

test('every target of the issue, 1 to 6, is printed by some bench', (t) => {
  const numbers = new Set(TARGETS.map((x) => x.id.replace(/^42\.(\d).*$/, '$1')));
  t.deepEqual([...numbers].sort(), ['1', '2', '3', '4', '5', '6']);
  const printed = (['proxy', 'toolset', 'lifecycle', 'scale'] as const).flatMap((bench) => benchTargetLines(bench, () => undefined));
  t.is(printed.length, TARGETS.length);
});

test('an added target judges the difference of two paths, which may be negative, in the figure\'s unit', (t) => {
  const p50 = target('42.2c');
  t.is(p50.kind, 'added');
  t.is(valueOf(p50, figuresOf({ 'proxy-key': 0.45, bare: 0.3 }))!.toFixed(3), '0.150');
  t.is(judge(p50, 0.1), 'PASS');
  t.is(judge(p50, 0.1001), 'FAIL');
  t.is(judge(p50, -0.05), 'PASS', 'the proxy faster than the bare relay');
  t.is(targetLine(p50, figuresOf({ 'proxy-key': 0.3, bare: 0.35 })), 'TARGET 42.2c added p50 one request at a time, proxy role (API key) minus the bare node:http relay\'s: -0.050 ms (0.300 − 0.350 p50 ms) (<= 0.1 ms) PASS');
  t.is(targetLine(target('42.2d'), figuresOf({ 'proxy-key': 2.1, direct: 0.4 })), 'TARGET 42.2d added p99 one request at a time, proxy role (API key) vs direct: +1.700 ms (2.100 − 0.400 p99 ms) (<= 1.5 ms) FAIL');
  t.is(targetLine(p50, figuresOf({ 'proxy-key': 0.3 })), 'TARGET 42.2c added p50 one request at a time, proxy role (API key) minus the bare node:http relay\'s: (<= 0.1 ms) NOT MEASURED (no p50 ms of bare measured here)');
});

test('an absolute target judges one figure against its limit, zero included', (t) => {
  const reach = target('42.3c');
  t.is(reach.kind, 'absolute');
  t.is(targetLine(reach, figuresOf({ 'token reach': 0 })), 'TARGET 42.3c a new token reaches every proxy (embedded stack + a proxy role process, route cache TTL 60 s), slowest of the swaps: 0.000 s (<= 0.5 s) PASS');
  t.is(judge(reach, 0.5), 'PASS');
  t.is(judge(reach, 0.51), 'FAIL');
  t.is(targetLine(target('42.5a'), figuresOf({ 'wave 1 open': 163.24 })), 'TARGET 42.5a RSS with 1,000 SSE streams open, wave 1: 163.24 MB (<= 150 MB) FAIL');
  t.is(judge(target('42.6a'), 10_000), 'PASS');
  t.is(judge(target('42.6a'), 9_999), 'FAIL');
  t.is(valueOf(reach, figuresOf({ 'token reach': Number.POSITIVE_INFINITY })), undefined);
});

test('a run smaller than the target\'s is NOT MEASURED and quotes its own figure beside the reason', (t) => {
  const lines = benchTargetLines('scale', figuresOf({ 'oauth connected': 20, 'on time before restart': 1 }), { outOfScope: () => '20 OAuth connectors with 60 s tokens' });
  t.deepEqual(lines, [
    'TARGET 42.6a OAuth connectors with 5-minute tokens connected and refreshing: (>= 10000 connectors) NOT MEASURED (20 OAuth connectors with 60 s tokens; this run: 20 connectors)',
    'TARGET 42.6b refreshes within 5 s of their schedule, a token lifetime before the restart: (>= 1 share) NOT MEASURED (20 OAuth connectors with 60 s tokens; this run: 1.00 share)',
    'TARGET 42.6c refreshes within 5 s of their schedule, a token lifetime after the restart of the whole stack: (>= 1 share) NOT MEASURED (20 OAuth connectors with 60 s tokens)',
    'TARGET 42.6d OAuth connectors connected before the restart that refreshed after it: (>= 1 share) NOT MEASURED (20 OAuth connectors with 60 s tokens)',
  ]);
});

test('the declared targets have distinct ids and a positive threshold each', (t) => {
  const ids = TARGETS.map((x: IssueTarget) => x.id);
  t.is(new Set(ids).size, ids.length);
  t.true(TARGETS.every((x) => x.threshold > 0 && (x.kind === 'absolute' || x.of !== x.to)));
});
