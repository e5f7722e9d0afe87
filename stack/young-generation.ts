// The young generation (V8's semi-spaces) of the embedded process's isolates. npm start sizes the
// main isolate, which serves the MCP path and the API; the workflow threads the worker starts
// later are sized here, before they exist (V8 reads these flags when an isolate is made).
import v8 from 'node:v8';

/**
 * npm start gives the main isolate 8 MB semi-spaces: at 4 MB the MCP path cost a third more CPU
 * per request, most of it in scavenges (bench:proxy, issue 29). It also keeps them at 8 MB
 * through idle (`--min-semi-space-size=8`): V8 otherwise shrinks them to 1 MB while idle, and
 * the load that returns pays about twice the scavenges until they regrow (bench:proxy's rounds
 * after 15 s idle, docs/scale.md).
 *
 * The workflow threads keep at most 4 MB and V8's own floor: their heap holds the workflow cache,
 * and a small young generation is what kept it low under replay churn (README, HEAP_MB).
 */
export function sizeWorkflowThreadsYoungGeneration(): void {
  if (!startedWith('--max-semi-space-size=8')) return;
  // A minimum of 0 is V8's "not set": its default floor, not a 0 MB one.
  v8.setFlagsFromString('--max-semi-space-size=4 --min-semi-space-size=0');
}

/** Whether this process was started with a node flag (npm start's, or NODE_OPTIONS'). */
function startedWith(flag: string): boolean {
  return [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].includes(flag);
}
