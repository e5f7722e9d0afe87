// npm start's young generation: the main isolate (the MCP path and the API) keeps its 8 MB
// semi-spaces from the start and through idle, and the workflow threads the worker makes keep at
// most 4 MB and V8's own floor below it, so that theirs still shrinks when idle.
import { execFileSync } from 'node:child_process';
import test from 'ava';
import { startNodeFlags } from '../../bench/start-flags';

const FIXTURE = new URL('./fixtures/young-generation-sizes.ts', import.meta.url).pathname;

interface Sizes { main: number; thread: { made: number; grown: number } }

function sizesWith(flags: string[]): Sizes {
  return JSON.parse(execFileSync(process.execPath, [...flags, '--import', 'tsx', FIXTURE], { encoding: 'utf8' }).trim()) as Sizes;
}

let plainSizes: Sizes | undefined;
/** The sizes without npm start's flags (V8's defaults), measured once for the tests that compare with them. */
const withoutFlags = (): Sizes => (plainSizes ??= sizesWith([]));

test('npm start\'s main isolate has its full young generation before any load', (t) => {
  // Committed: an 8 MB semi-space from the start (V8's floor is 1 MB), the size idle keeps.
  t.is(sizesWith(startNodeFlags()).main, 8);
});

test('npm start\'s workflow threads keep a young generation of at most 4 MB, with V8\'s own floor below it', (t) => {
  const { thread } = sizesWith(startNodeFlags());
  // A thread starts at its floor: V8's default one (1 MB in Node 20, 4 in Node 24's threads), not
  // the main isolate's 8 MB clamped to the thread's cap.
  t.is(thread.made, withoutFlags().thread.made, 'made with the main isolate\'s floor, not V8\'s');
  t.true(thread.grown <= 8, `grew to ${thread.grown} MB`);
  t.true(thread.grown > thread.made, `${thread.made} → ${thread.grown} MB: the load grew it`);
});

test('without npm start\'s flags, the workflow threads keep V8\'s defaults', (t) => {
  const plain = withoutFlags();
  t.true(plain.thread.grown > 8, `grew to ${plain.thread.grown} MB: no 4 MB cap`);
  t.true(plain.main < 8, `main ${plain.main} MB`);
});
