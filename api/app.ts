// The REST API as a Koa application. It parses and validates, calls the workflow for every
// change and reads MongoDB for every listing; it never holds state of its own.
import Koa from 'koa';
import { bodyParser } from '@koa/bodyparser';
import type { Authenticator } from '../callers/authenticator';
import type { OwnerRateLimit } from '../callers/owner-rate-limit';
import type { AddressPolicy } from '../platform/address-guard';
import type { Logger } from '../platform/logger';
import type { StdioRuntimeKind } from '../catalog/presets';
import type { Preset } from '../contract/schemas';
import type { ConsoleConfig } from '../config/config';
import type { ConnectorStore } from '../store/connector-store';
import type { CallAuditStore } from '../store/call-audit-store';
import { LiveCatalog } from '../store/live-catalog';
import { callerMiddleware } from './caller-middleware';
import { defaultConsoleDir, loadConsoleFiles } from './console-files';
import { callerHandlers } from './routes/caller';
import { consoleHandlers } from './routes/console';
import type { ConnectorCommands } from './connector-commands';
import { openApiDocument } from './openapi';
import { problemMiddleware } from './problem-middleware';
import { UNDECLARED_ANSWER_MESSAGE, declaredStatusCheck, type UndeclaredAnswer } from './declared-status';
import { declaredRouter } from './router';
import { connectorHandlers } from './routes/connectors';
import { healthHandlers, type ReadinessCheck } from './routes/health';
import { presetHandlers } from './routes/presets';
import { oauthHandlers, type OAuthRouteDeps } from './routes/oauth';
import { protectedResourceHandlers } from './routes/protected-resource';
import { toolsetHandlers } from './routes/toolsets';
import { approvalHandlers } from './routes/approvals';
import type { ToolsetStore } from '../store/toolset-store';
import type { TaskStore } from '../store/task-store';
import { workflowOwners, type OwnerSource } from './workflow-owners';

export interface ApiDeps extends OAuthRouteDeps {
  commands: ConnectorCommands;
  store: ConnectorStore;
  callStore: CallAuditStore;
  tasks: TaskStore;
  presets: readonly Preset[];
  /** Env and registry presets (CONNECTOR__REGISTRY_URL); absent: `presets` alone. */
  catalog?: LiveCatalog;
  /** Where stdio servers run here (GET /presets says which presets can run). */
  stdioRuntime: () => Promise<StdioRuntimeKind>;
  addressPolicy: AddressPolicy;
  baseUrl: string;
  bodyLimit: string;
  allowedRedirectOrigins: string[] | null;
  /** CONNECTOR__WORKLOAD_IDENTITY_TOKEN_FILE is set (absent: no). */
  workloadIdentity?: boolean;
  readiness: Record<string, ReadinessCheck>;
  logger: Logger;
  authenticator: Authenticator;
  /** The platform's identity provider, named in the MCP paths' protected-resource metadata. */
  issuer: string | null;
  /** CONNECTOR__AUTH_SCOPES: listed in the MCP path's protected-resource metadata (absent: none). */
  scopes?: readonly string[];
  maxConnectorsPerOwner: number;
  maxToolsetsPerOwner: number;
  /** CONNECTOR__RATE_LIMIT_PER_OWNER; null or absent: none. */
  rateLimit?: OwnerRateLimit | null;
  /** Told of an answer its operation's declaration does not list; absent: it is logged as a warning. */
  onUndeclaredAnswer?: (answer: UndeclaredAnswer) => void;
  /** The toolsets (absent: every toolset path answers 404). */
  toolsets?: ToolsetStore;
  /** Told of every toolset changed or deleted (a toolset server in the same process). */
  onToolsetChanged?: (toolsetId: string) => void;
  /** The web console's sign-in at the identity provider (CONNECTOR__CONSOLE_CLIENT_ID); null or absent: API keys only. */
  console?: ConsoleConfig | null;
  /** CONNECTOR__ALLOWED_ORIGINS: where else the console may be opened (absent: BASE_URL only). */
  allowedOrigins?: readonly string[];
  /** Where the console's built files are; absent: dist/console (api/console-files.ts). */
  consoleDir?: string | null;
  /** Whose each connector is; absent: its workflow's view query, asked through `temporal`. */
  owners?: OwnerSource;
}

export function createApi(deps: ApiDeps): Koa {
  const app = new Koa();
  app.proxy = false;
  app.silent = true; // errors are answered and logged by the problem middleware
  // Outermost, so that it sees the status the problem middleware settled on.
  app.use(declaredStatusCheck(deps.onUndeclaredAnswer ?? ((answer) => deps.logger.warn(answer, UNDECLARED_ANSWER_MESSAGE))));
  app.use(problemMiddleware(deps.logger));
  app.use(callerMiddleware(deps.authenticator, deps.rateLimit ?? null));
  app.use(bodyParser({ enableTypes: ['json'], jsonLimit: deps.bodyLimit, encoding: 'utf-8' }));

  const document = openApiDocument(deps.baseUrl);
  const catalog = deps.catalog ?? new LiveCatalog(deps.presets, null);
  const owners = deps.owners ?? workflowOwners(deps.temporal);
  const router = declaredRouter({
    ...healthHandlers(deps.readiness),
    getOpenApi: (ctx) => { ctx.body = document; },
    ...protectedResourceHandlers(deps),
    ...presetHandlers(catalog, deps.stdioRuntime),
    ...oauthHandlers({ ...deps, owners }),
    ...connectorHandlers({ ...deps, catalog, owners, callersAuthenticated: deps.authenticator.enabled }),
    ...toolsetHandlers({ ...deps, owners }),
    ...approvalHandlers({ ...deps, owners }),
    ...callerHandlers(deps.authenticator.enabled),
    ...consoleHandlers(loadConsoleFiles(deps.consoleDir === undefined ? defaultConsoleDir() : deps.consoleDir), {
      signIn: deps.console ?? null,
      origin: { baseUrl: deps.baseUrl, allowedOrigins: deps.allowedOrigins ?? [], authEnabled: deps.authenticator.enabled },
    }),
  });
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
