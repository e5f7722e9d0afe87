// OpenTelemetry traces for one process: a tracer provider exporting OTLP over HTTP, registered
// globally (W3C trace context only, no baggage), and the Temporal interceptors that carry the
// trace from the API's client calls into workflows and activities. Started only when an OTLP
// endpoint is configured; otherwise nothing is even loaded (the imports below are dynamic) and
// every caller holds `null`, so requests pay nothing for it.
import type { Tracer } from '@opentelemetry/api';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import type { TracingConfig } from '../config/config';
import type { Logger } from '../platform/logger';
import { workflowSpanProcessor } from './workflow-spans';

export interface Tracing {
  /** For the HTTP server's and the proxy's spans. */
  readonly tracer: Tracer;
  /** For every Temporal client of the process: start, Update and query spans, context into headers. */
  readonly clientInterceptors: WorkflowClientInterceptor[];
  /** For the worker: activity spans, and the sink through which workflow spans leave the sandbox. */
  readonly worker: { interceptors: WorkerInterceptors; sinks: InjectedSinks<OpenTelemetrySinks> };
  /** Sends what is buffered (at a stop: the last spans are not lost). */
  flush(): Promise<void>;
}

// One provider per process: the OpenTelemetry API's globals take one registration only (an
// embedded stack started twice in a test process shares it).
let started: Promise<Tracing> | undefined;

export function startTracing(config: TracingConfig | null, serviceName: string, logger: Logger): Promise<Tracing | null> {
  if (!config) return Promise.resolve(null);
  started ??= start(config, serviceName, logger).then((tracing) => {
    logger.info({ url: config.url, protocol: config.protocol }, 'traces exported over OTLP');
    return tracing;
  });
  return started;
}

async function start(config: TracingConfig, fallbackName: string, logger: Logger): Promise<Tracing> {
  const [api, core, resources, node, temporal] = await Promise.all([
    import('@opentelemetry/api'), import('@opentelemetry/core'), import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-node'), import('@temporalio/interceptors-opentelemetry'),
  ]);
  const { OTLPTraceExporter } = config.protocol === 'http/json'
    ? await import('@opentelemetry/exporter-trace-otlp-http')
    : await import('@opentelemetry/exporter-trace-otlp-proto');
  // OTEL_SERVICE_NAME wins, then OTEL_RESOURCE_ATTRIBUTES, then the process's own name.
  const resource = resources.defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': fallbackName }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }))
    .merge(config.serviceName ? resources.resourceFromAttributes({ 'service.name': config.serviceName }) : null);
  // The SDK's own complaints (a collector that cannot be reached, spans dropped) into our log.
  const sdkLog = logger.child({ component: 'opentelemetry' });
  api.diag.setLogger({
    error: (message, ...args) => sdkLog.warn({ details: args.map(String) }, message),
    warn: (message, ...args) => sdkLog.warn({ details: args.map(String) }, message),
    info: () => undefined, debug: () => undefined, verbose: () => undefined,
  }, api.DiagLogLevel.WARN);
  const batch = new node.BatchSpanProcessor(new OTLPTraceExporter({ url: config.url }));
  const provider = new node.NodeTracerProvider({ resource, spanProcessors: [batch] });
  provider.register({ propagator: new core.W3CTraceContextPropagator() });
  return {
    tracer: api.trace.getTracer('connector-registry'),
    clientInterceptors: [new temporal.OpenTelemetryWorkflowClientInterceptor()],
    worker: {
      interceptors: {
        activity: [(ctx) => ({
          inbound: new temporal.OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new temporal.OpenTelemetryActivityOutboundInterceptor(ctx),
        })],
      },
      // Typed against sdk-trace-base 1.x, which the interceptors bring for the sandbox; the
      // processor takes that line's spans and gives the 2.x batch processor its own shape.
      sinks: { exporter: temporal.makeWorkflowExporter(workflowSpanProcessor(batch, resource) as never, resource as never) },
    },
    flush: () => provider.forceFlush(),
  };
}
