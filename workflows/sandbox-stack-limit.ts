// How many frames an Error made in the workflow sandbox captures. The bundle preloads this module
// (service/workflow-bundle.ts, the SDK's `preloadModules`) into the worker's shared V8 context
// before the SDK freezes that context's globals; a workflow module is loaded after the freeze and
// could not set it.
//
// Why it matters: for every promise a workflow makes, live or replayed, the SDK's promise hook
// (for its stack-trace query) builds an Error in the sandbox and maps each captured frame through
// the bundle's source map. With V8's default of 10 frames that was about a sixth of the CPU of a
// replay (docs/scale.md, "The sandbox's stack limit"). Three frames keep the one or two that the
// hook's own functions take (two under Node 20, which calls it through its `initAll`) and the one
// that says where in workflows/ the promise was made; an error a workflow throws keeps its own three
// innermost frames (where it was thrown and two callers).
export const SANDBOX_STACK_FRAMES = 3;

Error.stackTraceLimit = SANDBOX_STACK_FRAMES;
