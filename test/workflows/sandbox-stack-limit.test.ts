// The workflow sandbox's stack limit (workflows/sandbox-stack-limit.ts) as the worker runs the
// bundle: the SDK's stack-trace query still says where in workflows/ each waiting promise was
// made, and captures no more than that.
import test from 'ava';
import type { EnhancedStackTrace } from '@temporalio/workflow';
import { connectUpdate } from '../../workflows/messages';
import { startHarness, type Harness } from './support/workflow-harness';

// Three frames in the sandbox (not imported: the module sets the limit of whichever context loads
// it, this test process's too), of which the SDK's promise hook spends one or two on its own
// functions (its `init`; under Node 20 also Node's `initAll`) before the frame that made the promise.
const MOST_FRAMES_LEFT = 3 - 1;

let h: Harness;
test.before(async () => {
  h = await startHarness();
});
test.after.always(async () => {
  await h?.stop();
});

test('a connector waiting for its authorization: its stack trace names its workflows/ source, a frame or two a promise', async (t) => {
  const handle = await h.start();
  await handle.executeUpdate(connectUpdate, { args: [{ actor: 'tester' }] });
  const trace = await handle.query<EnhancedStackTrace>('__enhanced_stack_trace');
  const locations = trace.stacks.map((stack) => stack.locations);
  t.true(locations.length > 0, 'the workflow waits on its authorization and its deadline');
  const lengths = locations.map((l) => l.length);
  t.true(lengths.every((n) => n >= 1 && n <= MOST_FRAMES_LEFT), `every stack holds only the frames left after the hook's: ${lengths.join(', ')}`);
  const files = locations.flat().map((l) => l.file_path ?? '');
  t.true(files.some((f) => /\/workflows\/[\w-]+\.ts$/.test(f)), `a frame maps to the project's workflow source: ${files.join(', ')}`);
});
