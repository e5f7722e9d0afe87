// The REST API as a Koa application. It parses and validates, calls the workflow for every
// change and reads MongoDB for every listing; it never holds state of its own.
import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type { Authenticator } from '../callers/authenticator';
import type { OwnerRateLimit } from '../callers/owner-rate-limit';
import type { AddressPolicy } from '../core/address-guard';
import type { Logger } from '../core/logger';
import type { StdioRuntimeKind } from '../core/presets';
import type { Preset } from '../core/schemas';
import type { ConsoleConfig } from '../core/config';
import type { ConnectorStore } from '../store/connector-store';
import type { CallAuditStore } from '../store/call-audit-store';
import { callerMiddleware } from './caller-middleware';
import { defaultConsoleDir, loadConsoleFiles } from './console-files';
import { callerRoutes } from './routes/caller';
import { consoleRoutes } from './routes/console';
import type { ConnectorCommands } from './connector-commands';
import { openApiDocument } from './openapi';
import { problemMiddleware } from './problem-middleware';
import { connectorRoutes } from './routes/connectors';
import { healthRoutes, type ReadinessCheck } from './routes/health';
import { presetRoutes } from './routes/presets';
import { oauthRoutes, type OAuthRouteDeps } from './routes/oauth';
import { protectedResourceRoutes } from './routes/protected-resource';

export interface ApiDeps extends OAuthRouteDeps {
  commands: ConnectorCommands;
  store: ConnectorStore;
  callStore: CallAuditStore;
  presets: readonly Preset[];
  /** Where stdio servers run here (GET /presets says which presets can run). */
  stdioRuntime: () => Promise<StdioRuntimeKind>;
  addressPolicy: AddressPolicy;
  baseUrl: string;
  bodyLimit: string;
  allowedRedirectOrigins: string[] | null;
  readiness: Record<string, ReadinessCheck>;
  logger: Logger;
  authenticator: Authenticator;
  /** The platform's identity provider, named in the MCP paths' protected-resource metadata. */
  issuer: string | null;
  maxConnectorsPerOwner: number;
  /** CONNECTOR__RATE_LIMIT_PER_OWNER; null or absent: none. */
  rateLimit?: OwnerRateLimit | null;
  /** The web console's sign-in at the identity provider (CONNECTOR__CONSOLE_CLIENT_ID); null or absent: API keys only. */
  console?: ConsoleConfig | null;
  /** Where the console's built files are; absent: dist/console (api/console-files.ts). */
  consoleDir?: string | null;
}

export function createApi(deps: ApiDeps): Koa {
  const app = new Koa();
  app.proxy = false;
  app.silent = true; // errors are answered and logged by the problem middleware
  app.use(problemMiddleware(deps.logger));
  app.use(callerMiddleware(deps.authenticator, deps.rateLimit ?? null));
  app.use(bodyParser({ enableTypes: ['json'], jsonLimit: deps.bodyLimit, encoding: 'utf-8' }));

  const docs = new Router();
  const document = openApiDocument(deps.baseUrl);
  docs.get('/api/v1/openapi.json', (ctx) => {
    ctx.body = document;
  });

  // Presets before the connector routes, so that /presets is not read as a connector id.
  const connectorDeps = { ...deps, callersAuthenticated: deps.authenticator.enabled };
  const routers = [
    healthRoutes(deps.readiness), docs, callerRoutes(deps.authenticator.enabled),
    consoleRoutes(loadConsoleFiles(deps.consoleDir === undefined ? defaultConsoleDir() : deps.consoleDir), deps.console ?? null), protectedResourceRoutes(deps), presetRoutes(deps.presets, deps.stdioRuntime), oauthRoutes(deps), connectorRoutes(connectorDeps),
  ];
  for (const router of routers) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  return app;
}
