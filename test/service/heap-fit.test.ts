// The worker's heap limit against its workflow cache: refused at start when the cache could not
// fit, and the defaults of `npm start` / `npm run worker` (CONNECTOR__HEAP_MB) hold the default cache.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import test from 'ava';
import { cachedWorkflowsFor, ConfigError, loadConfig } from '../../config/config';
import { assertHeapHoldsCache, heapNeededMb } from '../../service/heap-fit';

const MB = 1048576;
const scripts = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).scripts as Record<string, string>;

function heapLimitWith(flags: string[]): number {
  return Number(execFileSync(process.execPath, [...flags, '-p', 'require("node:v8").getHeapStatistics().heap_size_limit'], { encoding: 'utf8' }).trim());
}

test('a cache larger than the heap is refused, naming the budget and the heap setting', (t) => {
  const error = t.throws(() => assertHeapHoldsCache(cachedWorkflowsFor(1024), 192 * MB), { instanceOf: ConfigError });
  t.regex(error!.message, /CONNECTOR__WORKER_MEMORY_BUDGET_MB/);
  t.regex(error!.message, /--max-old-space-size/);
  t.regex(error!.message, new RegExp(`needs a V8 heap of ${heapNeededMb(cachedWorkflowsFor(1024))} MB, but node runs with 192 MB`));
});

for (const name of ['start', 'worker']) {
  test(`npm run ${name}'s default heap holds the default budget's cache`, (t) => {
    const mb = /--max-old-space-size=\$\{CONNECTOR__HEAP_MB:-(\d+)\}/.exec(scripts[name]!)?.[1];
    t.truthy(mb, scripts[name]);
    // The young generation counts in the limit too, and its default grew in Node 22+: the script's
    // own semi-space flag decides what the limit is.
    const semiSpace = /--max-semi-space-size=\d+/.exec(scripts[name]!)?.[0];
    t.truthy(semiSpace, scripts[name]);
    const limit = heapLimitWith([`--max-old-space-size=${mb}`, semiSpace!]);
    const defaultCache = loadConfig({}).temporal.maxCachedWorkflows;
    t.notThrows(() => assertHeapHoldsCache(defaultCache, limit));
    // and the check is not vacuous at that limit: four times the default cache does not fit
    t.throws(() => assertHeapHoldsCache(defaultCache * 4, limit), { instanceOf: ConfigError });
  });
}
