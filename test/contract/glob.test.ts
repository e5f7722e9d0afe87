// The glob matcher: the meaning the toolsets' rules had (checked against a regular expression on
// short names, where backtracking costs nothing), and a cost linear in the name, counted in
// character comparisons, for the pattern that took 32 s as a regular expression (issue 37).
import test from 'ava';
import { MAX_GLOB_STARS, globMatches, globStars, matchGlob } from '../../contract/glob';

const HOSTILE = '*a'.repeat(16) + '*c';

/** The former matcher: right, and exponential on hostile input. Used here on short names only. */
function byRegExp(pattern: string, value: string): boolean {
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${source}$`, 's').test(value);
}

/** A small deterministic generator (no Math.random: a failure must be reproducible). */
function* words(alphabet: string, maxLength: number, count: number, seed: number): Generator<string> {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31);
  for (let n = 0; n < count; n++) {
    const length = next() % (maxLength + 1);
    let word = '';
    for (let i = 0; i < length; i++) word += alphabet[next() % alphabet.length];
    yield word;
  }
}

test('the same answers as the regular expression it replaces, on 40,000 pattern and name pairs', (t) => {
  const names = [...words('ab.', 9, 200, 7)];
  let disagreements = 0;
  let matched = 0;
  for (const pattern of words('ab*?.', 7, 200, 11)) {
    for (const name of names) {
      const expected = byRegExp(pattern, name);
      if (globMatches(pattern, name) !== expected) disagreements++;
      if (expected) matched++;
    }
  }
  t.is(disagreements, 0);
  t.true(matched > 1000, `the pairs exercise matches too (${matched})`);
});

test('literal characters, anchoring, ? as exactly one character, runs of stars as one', (t) => {
  t.true(globMatches('pay__*', 'pay__create'));
  t.false(globMatches('pay__*', 'xpay__create'));
  t.true(globMatches('*', ''));
  t.false(globMatches('?', ''));
  t.true(globMatches('a**b', 'ab'));
  t.false(globMatches('a.c', 'abc'));
  t.true(globMatches('(x)[y]{z}+^$|\\', '(x)[y]{z}+^$|\\'));
  t.true(globMatches('a*b', 'a\nb'), 'a star spans any character');
  t.is(globStars('a**b*c*'), 3);
  t.is(globStars('abc'), 0);
});

test('the hostile pattern against a 256-character name takes a number of comparisons linear in the name', (t) => {
  for (const name of ['a'.repeat(256), 'a'.repeat(255) + 'c', 'a'.repeat(128) + 'b'.repeat(127) + 'c', 'ab'.repeat(128)]) {
    const { matched, steps } = matchGlob(HOSTILE, name);
    t.is(matched, byRegExpShortCut(name), name.slice(0, 8));
    // Every segment is compared at most once per position of the name, and positions only move on.
    t.true(steps <= 2 * (name.length + HOSTILE.length), `${steps} comparisons for ${name.length} characters`);
  }
  // And with a trailing star, so the last segment floats too: every middle segment searched.
  const floating = HOSTILE + '*';
  const { steps } = matchGlob(floating, 'a'.repeat(256));
  t.true(steps <= 2 * (256 + floating.length), `${steps}`);
});

/** What the hostile pattern means, without matching it: at least 16 a's, then anything, ending in c. */
function byRegExpShortCut(name: string): boolean {
  return name.endsWith('c') && (name.slice(0, -1).match(/a/g)?.length ?? 0) >= 16;
}

test('doubling the name at most doubles the comparisons, for patterns with every shape of segment', (t) => {
  const patterns = [HOSTILE, '*ab*ab*ab*ab*b', '?a?*b?b*?', '*aab*aab*aab*aab*aab*aab*aab*aac', `${'*a?'.repeat(MAX_GLOB_STARS)}`];
  for (const pattern of patterns) {
    for (const unit of ['a', 'ab', 'aab', 'aaab']) {
      const short = unit.repeat(Math.ceil(128 / unit.length)).slice(0, 128);
      const long = unit.repeat(Math.ceil(256 / unit.length)).slice(0, 256);
      const a = matchGlob(pattern, short).steps;
      const b = matchGlob(pattern, long).steps;
      t.true(b <= 2 * a + pattern.length, `${pattern} over ${unit}…: ${a} then ${b} comparisons`);
      t.true(b <= (256 + 1) * (pattern.length + 1), 'within the bound the module states');
    }
  }
});

test('benchmark: the hostile pattern, 10,000 times against a 256-character name (time printed, not asserted)', (t) => {
  const name = 'a'.repeat(255) + 'b';
  const started = process.hrtime.bigint();
  for (let i = 0; i < 10_000; i++) globMatches(HOSTILE + '*', name);
  const micros = Number(process.hrtime.bigint() - started) / 1e3 / 10_000;
  t.log(`${micros.toFixed(2)} µs a match`);
  t.pass();
});
