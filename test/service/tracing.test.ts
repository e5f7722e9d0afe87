// The tracing SDK alone, against a local OTLP receiver: the default protocol is protobuf over
// HTTP to the configured traces URL, under the process's service name; and workflow spans from
// the sandbox's 1.x shape keep their parent and lose what is not a plain attribute.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { SpanKind, TraceFlags } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { createLogger } from '../../platform/logger';
import { startTracing } from '../../service/tracing';
import { currentShape, workflowSpanProcessor, type SandboxSpan } from '../../service/workflow-spans';
import { startOtlpReceiver } from '../helpers/otlp-receiver';

// Read by the SDK from the process environment: a failed export is given up sooner than by
// default (the unreachable collector below), yet the export to the live receiver, which a busy
// machine may answer late, is never given up on for the machine's load.
process.env.OTEL_EXPORTER_OTLP_TIMEOUT = '10000';

test('spans leave as OTLP protobuf over HTTP, named by the process, when the protocol is not chosen', async (t) => {
  const receiver = await startOtlpReceiver();
  t.teardown(() => receiver.close());
  const logFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tracing-test-')), 'log.jsonl');
  const tracing = await startTracing({ url: `${receiver.endpoint}/v1/traces`, protocol: 'http/protobuf' }, 'connector-registry-test', createLogger('tracing-test', 'info', logFile));
  t.truthy(tracing);
  t.is(await startTracing({ url: 'http://127.0.0.1:1/v1/traces', protocol: 'http/json' }, 'other', createLogger('tracing-test', 'silent')), tracing, 'one SDK per process');
  t.is(await startTracing(null, 'off', createLogger('tracing-test', 'silent')), null);
  tracing!.tracer.startSpan('probe-span-name', { kind: SpanKind.INTERNAL }).end();
  await tracing!.flush();
  t.deepEqual(receiver.posts.map((p) => [p.path, p.contentType]), [['/v1/traces', 'application/x-protobuf']]);
  // Protobuf keeps strings as they are: the span's and the service's names are in the body.
  t.true(receiver.bodies[0]!.includes('probe-span-name'));
  t.true(receiver.bodies[0]!.includes('connector-registry-test'));

  // A collector that cannot be reached is reported in the service's log, by the SDK.
  await receiver.close();
  tracing!.tracer.startSpan('lost-span').end();
  await tracing!.flush().catch(() => undefined);
  const lines = fs.readFileSync(logFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { level: number; component?: string; msg: string });
  t.true(lines.some((l) => l.component === 'opentelemetry' && l.level === 40), JSON.stringify(lines));
});

const sandboxSpan = (attributes: Record<string, unknown>, parentSpanId?: string): SandboxSpan => ({
  name: 'HandleUpdate:connect', kind: SpanKind.INTERNAL,
  spanContext: () => ({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED }),
  parentSpanId, startTime: [1, 0], endTime: [2, 0], duration: [1, 0], ended: true, status: { code: 0 },
  attributes: attributes as SandboxSpan['attributes'], links: [], events: [],
  droppedAttributesCount: 0, droppedEventsCount: 0, droppedLinksCount: 0,
  instrumentationLibrary: { name: '@temporalio/interceptor-workflow' },
});

test('a workflow span from the sandbox keeps its parent and scope, and only plain attributes', (t) => {
  const resource = resourceFromAttributes({ 'service.name': 'w' });
  const span = currentShape(sandboxSpan({
    temporalUpdateId: 'u-1', workflowId: 'connector:1', attempt: 1, memo: { a: 1 }, searchAttributes: {}, lastResult: 'previous run', startTime: new Date(0),
  }, '1111111111111111'), resource);
  t.deepEqual(span.parentSpanContext, { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '1111111111111111', traceFlags: TraceFlags.SAMPLED });
  t.deepEqual(span.instrumentationScope, { name: '@temporalio/interceptor-workflow' });
  t.deepEqual(span.attributes, { temporalUpdateId: 'u-1', workflowId: 'connector:1', attempt: 1 });
  t.is(span.resource, resource);
  t.is(span.spanContext().spanId, '00f067aa0ba902b7');
  t.is(currentShape(sandboxSpan({}), resource).parentSpanContext, undefined, 'a root span has no parent');

  const ended: ReadableSpan[] = [];
  const processor = workflowSpanProcessor({ onEnd: (s: ReadableSpan) => ended.push(s), forceFlush: async () => undefined } as never, resource);
  processor.onEnd(sandboxSpan({ workflowId: 'connector:2' }, '2222222222222222'));
  t.is(ended[0]!.parentSpanContext?.spanId, '2222222222222222');
});
