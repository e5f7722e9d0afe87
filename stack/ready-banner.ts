// What `npm start` says once it is ready: the addresses a person opens next, where the eye finds
// them, and whether callers must bring a credential (and so at which address the console works).
import type { LogFormat, Logger } from '../platform/logger';
import type { CallerConfig } from '../config/config';
import { loopbackOrigins } from '../callers/request-origin';
import type { EmbeddedStack } from './embedded-stack';

export interface ReadyAddresses {
  /** The web console (docs/console.md) and the API reference, both served by the API. */
  console?: string;
  reference?: string;
  api: string;
  openapi: string;
  /** Only when CONNECTOR__TEMPORAL_UI asked for it: absent with an external Temporal or a headless dev server. */
  temporalUi?: string;
  /** Who may call, in words; absent when not known. */
  callers?: string;
}

type ReadyStack = Pick<EmbeddedStack, 'baseUrl' | 'temporalUiUrl' | 'temporalAddress' | 'mongoUri'> & {
  config?: { callers: Pick<CallerConfig, 'enabled' | 'apiKeys' | 'jwt' | 'allowedOrigins'> };
};

export function readyAddresses(stack: Pick<ReadyStack, 'baseUrl' | 'temporalUiUrl' | 'config'>): ReadyAddresses {
  return {
    console: `${stack.baseUrl}/`, reference: `${stack.baseUrl}/reference`, api: stack.baseUrl, openapi: `${stack.baseUrl}/api/v1/openapi.json`, temporalUi: stack.temporalUiUrl,
    ...(stack.config ? { callers: callersInWords(stack.baseUrl, stack.config.callers) } : {}),
  };
}

/**
 * Open loopback mode: every loopback name works, and no credential is asked. Authenticated: the
 * console works at BASE_URL's origin (and the allowed ones) only, and a key or a sign-in is needed.
 */
export function callersInWords(baseUrl: string, callers: Pick<CallerConfig, 'enabled' | 'apiKeys' | 'jwt' | 'allowedOrigins'>): string {
  if (!callers.enabled) {
    const also = loopbackOrigins(new URL(baseUrl)).filter((origin) => origin !== new URL(baseUrl).origin);
    const where = also.length > 0 ? `; the console works at ${also.join(' and ')} too` : '';
    return `not authenticated: open to this machine, no credential asked (CONNECTOR__API_KEYS or CONNECTOR__AUTH_ISSUER turn it on)${where}`;
  }
  const ways = [
    ...(callers.apiKeys.length > 0 ? [`${callers.apiKeys.length} API key${callers.apiKeys.length > 1 ? 's' : ''}`] : []),
    ...(callers.jwt ? [`access tokens of ${callers.jwt.issuer}`] : []),
  ];
  return `authenticated (${ways.join(', ') || 'no way configured'}): send Authorization: Bearer <key>; open the console at ${baseUrl}/ exactly`;
}

/** A short block for the pretty log: one address per line, labels aligned. */
export function readyBanner(addresses: ReadyAddresses): string {
  const rows: [string, string][] = [
    ...(addresses.console ? [['Console', addresses.console] as [string, string]] : []),
    ...(addresses.reference ? [['API reference', addresses.reference] as [string, string]] : []),
    ['API', addresses.api],
    ['OpenAPI', addresses.openapi],
    ...(addresses.temporalUi ? [['Temporal Web UI', addresses.temporalUi] as [string, string]] : []),
    ...(addresses.callers ? [['Callers', addresses.callers] as [string, string]] : []),
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
