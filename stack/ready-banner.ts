// What `npm start` says once it is ready: the addresses a person opens next, where the eye finds them.
import type { LogFormat, Logger } from '../platform/logger';
import type { EmbeddedStack } from './embedded-stack';

export interface ReadyAddresses {
  /** The web console (docs/console.md) and the API reference, both served by the API. */
  console?: string;
  reference?: string;
  api: string;
  openapi: string;
  /** Only when CONNECTOR__TEMPORAL_UI asked for it: absent with an external Temporal or a headless dev server. */
  temporalUi?: string;
}

type ReadyStack = Pick<EmbeddedStack, 'baseUrl' | 'temporalUiUrl' | 'temporalAddress' | 'mongoUri'>;

export function readyAddresses(stack: Pick<ReadyStack, 'baseUrl' | 'temporalUiUrl'>): ReadyAddresses {
  return {
    console: `${stack.baseUrl}/`, reference: `${stack.baseUrl}/reference`, api: stack.baseUrl, openapi: `${stack.baseUrl}/api/v1/openapi.json`, temporalUi: stack.temporalUiUrl,
  };
}

/** A short block for the pretty log: one address per line, labels aligned. */
export function readyBanner(addresses: ReadyAddresses): string {
  const rows: [string, string][] = [
    ...(addresses.console ? [['Console', addresses.console] as [string, string]] : []),
    ...(addresses.reference ? [['API reference', addresses.reference] as [string, string]] : []),
    ['API', addresses.api],
    ['OpenAPI', addresses.openapi],
    ...(addresses.temporalUi ? [['Temporal Web UI', addresses.temporalUi] as [string, string]] : []),
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  return ['connector registry ready', ...rows.map(([label, value]) => `    ${label.padEnd(width)}  ${value}`)].join('\n');
}

/** The ready line: the banner for a person; for a machine, one line with the addresses as fields. */
export function logReady(logger: Logger, format: LogFormat, stack: ReadyStack): void {
  const addresses = readyAddresses(stack);
  // The MongoDB URI's credentials and options, if any, are dropped by the logger's redaction (field `mongodb`: origin and path).
  const servers = { temporal: stack.temporalAddress, mongodb: stack.mongoUri };
  if (format === 'pretty') logger.info(servers, readyBanner(addresses));
  else logger.info({ ...addresses, ...servers }, `connector registry ready at ${stack.baseUrl}${stack.temporalUiUrl ? ` (Temporal Web UI: ${stack.temporalUiUrl})` : ''}`);
}
