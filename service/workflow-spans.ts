// Workflow spans reach the worker through the Temporal interceptors' sink, built by
// @temporalio/interceptors-opentelemetry 1.24 inside the sandbox with sdk-trace-base 1.x. That
// line names a span's parent `parentSpanId` and its scope `instrumentationLibrary`; the 2.x
// exporter this process uses reads `parentSpanContext` and `instrumentationScope`, and would
// send the workflow's spans without their parent (cut off from the API's trace) or fail on the
// scope. This processor turns them into the current shape and hands them to the process's batch
// processor, so that they leave through the same exporter as every other span.
import type { Attributes, AttributeValue, SpanContext } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-node';

/** A span as the sandbox's sink delivers it (sdk-trace-base 1.x's ReadableSpan). */
export type SandboxSpan = Omit<ReadableSpan, 'parentSpanContext' | 'instrumentationScope' | 'resource'> & {
  parentSpanId?: string;
  instrumentationLibrary?: { name: string; version?: string; schemaUrl?: string };
};

/**
 * The sink merges the whole WorkflowInfo into each span's attributes (memo, search attributes,
 * retry policy, last result...). Only plain values are attributes at all; a cron run's last
 * result is the workflow's data, not a label, so it is never kept.
 */
const DROPPED_INFO = new Set(['lastResult', 'lastFailure']);

export function workflowSpanProcessor(target: SpanProcessor, resource: Resource) {
  return {
    onStart(): void {},
    onEnd(span: SandboxSpan): void {
      target.onEnd(currentShape(span, resource));
    },
    forceFlush: () => target.forceFlush(),
    // The process's provider shuts the batch processor down; a worker's end must not.
    shutdown: async () => undefined,
  };
}

export function currentShape(span: SandboxSpan, resource: Resource): ReadableSpan {
  const { parentSpanId, instrumentationLibrary, attributes, ...rest } = span;
  const context = span.spanContext();
  const parentSpanContext: SpanContext | undefined = parentSpanId
    ? { traceId: context.traceId, spanId: parentSpanId, traceFlags: context.traceFlags }
    : undefined;
  return {
    ...rest,
    spanContext: () => context,
    parentSpanContext,
    attributes: plainAttributes(attributes),
    resource,
    instrumentationScope: instrumentationLibrary ?? { name: '@temporalio/interceptor-workflow' },
  };
}

function plainAttributes(attributes: Attributes): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (!DROPPED_INFO.has(key) && isPlain(value)) out[key] = value;
  }
  return out;
}

function isPlain(value: unknown): value is AttributeValue {
  const t = typeof value;
  return t === 'string' || t === 'number' || t === 'boolean';
}
