// The egress network's packet filter as text, then as nftables reads it in a namespace of its own
// (as root; `nft -c` only checks). The order is the policy: DNS to the stack's forwarder, then the
// never-reached ranges and this machine's own addresses, then what the preset allows, then the
// private ranges, then (without the internet) everything else.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import test from 'ava';
import { rootTest } from '../helpers/uid-isolation-gate';
import { egressRuleset } from '../../activities/workloads/egress-rules';
import { systemProgram } from '../../activities/workloads/system-program';

const exec = promisify(execFile);
const rules = (text: string) => text.split('\n').map((l) => l.trim()).filter((l) => /^(ip6? |oifname|reject)/.test(l));

test('allowed networks come after the never-reached ranges and the host\'s addresses, before the private ranges; no internet: reject the rest', (t) => {
  const text = egressRuleset({ internet: false, allowedNetworks: ['10.20.0.0/16', 'fd00:1::/64'], hostAddresses: ['10.20.0.5', '203.0.113.9', 'fd00:1::5'] });
  const lines = rules(text);
  t.is(lines[0], 'oifname "lo" accept');
  t.deepEqual(lines.slice(1, 3), ['ip daddr 10.0.2.3 udp dport 53 accept', 'ip daddr 10.0.2.3 tcp dport 53 accept']);
  t.regex(lines[3]!, /^ip daddr \{ 10\.0\.2\.0\/24, .*127\.0\.0\.0\/8.*10\.20\.0\.5\/32 \} reject$/, 'the stack\'s own network but DNS, loopback, this machine\'s address');
  t.notRegex(lines[3]!, /203\.0\.113\.9/, 'inside 203.0.113.0/24 (reserved), already refused');
  t.regex(lines[4]!, /^ip6 daddr \{ .*fe80::\/10.*64:ff9b::a9fe:0\/112.*fd00:1::5\/128 \} reject$/);
  t.deepEqual(lines.slice(5, 7), ['ip daddr { 10.20.0.0/16 } accept', 'ip6 daddr { fd00:1::/64 } accept']);
  t.regex(lines[7]!, /^ip daddr \{ 100\.64\.0\.0\/10, 10\.0\.0\.0\/8, 172\.16\.0\.0\/12, 192\.168\.0\.0\/16 \} reject$/);
  t.regex(lines[8]!, /^ip6 daddr \{ fc00::\/7, .*64:ff9b:1::\/48.*2002:a00::\/24.* \} reject$/);
  t.is(lines[9], 'reject', 'no internet: nothing else');
  t.is(lines.length, 10);
});

test('with the internet and nothing allowed: no accept rule, no final reject', (t) => {
  const lines = rules(egressRuleset({ internet: true, allowedNetworks: [], hostAddresses: [] }));
  t.false(lines.some((l) => l.endsWith(' accept') && l.startsWith('ip daddr {')));
  t.not(lines.at(-1), 'reject');
});

rootTest('egress-rules.test.ts', 'nftables takes the ruleset', async (t) => {
  const text = egressRuleset({ internet: false, allowedNetworks: ['10.20.0.0/16'], hostAddresses: ['192.0.2.2', 'fd00::2'] });
  const child = exec(systemProgram('unshare'), ['--net', '--', systemProgram('nft'), '-c', '-f', '-']);
  child.child.stdin!.end(text);
  await t.notThrowsAsync(child);
});
