// /api/v1/connectors: create, list, get, patch (approval rules), delete, connect, disconnect, events, calls (their methods,
// paths, schemas and statuses are declared in contract/operations.ts).
import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import { presentConnector, type ConnectorRecord } from '../../contract/connector-record';
import { ProblemError } from '../../contract/problem';
import { BlockedAddressError, checkHost, type AddressPolicy } from '../../platform/address-guard';
import { isStdioUrl } from '../../contract/connector-url';
import { clearTextRefusal, urlTokenTransportRefusal } from '../../platform/token-transport';
import { findPreset } from '../../catalog/presets';
import { PatchConnectorSchema, type ConnectRequest, type Preset } from '../../contract/schemas';
import { connectInputs, type ConnectInputs } from '../../catalog/connect-inputs';
import type { ConnectorStore } from '../../store/connector-store';
import type { CallAuditStore } from '../../store/call-audit-store';
import type { TaskStore } from '../../store/task-store';
import { InvalidPageToken } from '../../store/page-token';
import type { LiveCatalog } from '../../store/live-catalog';
import type { ConnectorCommands } from '../connector-commands';
import { actorOf, mayAccess, type Caller } from '../../callers/caller';
import { callerOf } from '../caller-middleware';
import { parseWith } from '../parse';
import { mergePatchBody } from '../merge-patch-body';
import type { Handler } from '../router';
import { isConnectorId } from '../../contract/connector-id';
import type { Logger } from '../../platform/logger';
import type { OwnerSource, WorkflowOwner } from '../workflow-owners';
import { withOwnerSlot } from '../owner-quota';
import { withWorkloadIdentity } from '../workload-identity-connect';
import { withPresetClientCredentials } from '../preset-client-credentials';
import { withPresetEnterpriseManaged } from '../preset-enterprise-managed';
import { checkSignInAssertion, type SignInVerifier } from '../sign-in-assertion';

export interface ConnectorRouteDeps {
  commands: ConnectorCommands;
  store: ConnectorStore;
  callStore: CallAuditStore;
  tasks: TaskStore;
  presets: readonly Preset[];
  /** When given, presets are read from it (env and registry), fresh for each create. */
  catalog?: LiveCatalog;
  addressPolicy: AddressPolicy;
  baseUrl: string;
  allowedRedirectOrigins: string[] | null;
  maxConnectorsPerOwner: number;
  /** Verifies an enterprise-managed connect's id_token when the platform's identity provider issued it. */
  authenticator?: SignInVerifier;
  callersAuthenticated: boolean;
  /** Whose each connector is, per its workflow: every ownership decision's source (workflow-owners.ts). */
  owners: OwnerSource;
  /** CONNECTOR__WORKLOAD_IDENTITY_TOKEN_FILE is set: connects may present the service's workload identity. */
  workloadIdentity?: boolean;
  logger: Logger;
}

type ConnectorOperation = 'createConnector' | 'listConnectors' | 'getConnector' | 'patchConnector' | 'deleteConnector' | 'connectConnector'
  | 'disconnectConnector' | 'listConnectorEvents' | 'listConnectorCalls' | 'listConnectorTasks';

/** The handlers of the connector operations (declared in contract/operations.ts). */
export function connectorHandlers(deps: ConnectorRouteDeps): { [K in ConnectorOperation]: Handler<K> } {
  const present = (view: ConnectorRecord) => presentConnector(view, deps.baseUrl);
  return {
    async createConnector(ctx, input) {
      const body = input.body();
      const preset = body.match_preset ? findPreset(body.url, await presetsOf(deps)) : undefined;
      if (isStdioUrl(body.url) && !preset) {
        throw unprocessable('url', 'an mcp+stdio:// URL must match a preset (and match_preset must be true)');
      }
      if (!isStdioUrl(body.url)) await refuseForbiddenHost(body.url, deps.addressPolicy);
      const caller = callerOf(ctx);
      const id = randomUUID();
      const view = await withQuotaSlot(caller, id, deps, () => deps.commands.create({
        id, url: body.url, metadata: body.metadata, clientId: body.client_id, clientSecret: body.client_secret,
        preset, transport: body.transport, createdBy: caller.subject, createdByName: caller.displayName, approvalRules: body.approval_rules,
      }));
      deps.owners.started?.(view.id, { owner: view.created_by, name: view.created_by_name ?? null });
      ctx.status = 201;
      ctx.set('Location', `/api/v1/connectors/${view.id}`);
      ctx.body = present(view);
    },

    async listConnectors(ctx, input) {
      const query = input.query();
      const caller = callerOf(ctx);
      // A caller lists its own connectors; an admin lists all, or one owner's with created_by.
      const createdBy = caller.admin ? query.created_by : caller.subject ?? undefined;
      const page = await pageOr422(() => deps.store.list({ limit: query.limit, pageToken: query.page_token, state: query.state, createdBy }));
      ctx.body = { ...page, items: (caller.admin ? page.items : await ownedItems(page.items, caller, deps)).map(present) };
    },

    async getConnector(ctx) {
      ctx.body = present(await existing(ctx, deps));
    },

    // Only the owner (or an admin) changes the rules: they decide who may approve calls of its connector.
    // The body is read here, not through input.body(): a merge patch comes as application/merge-patch+json.
    async patchConnector(ctx) {
      const body = parseWith(PatchConnectorSchema, await mergePatchBody(ctx), 'request body');
      const id = await ownedId(ctx, deps);
      if (body.approval_rules === undefined) return void (ctx.body = present(await existing(ctx, deps)));
      ctx.body = present(await deps.commands.setApprovalRules(id, body.approval_rules ?? [], actorOf(callerOf(ctx))));
    },

    async deleteConnector(ctx) {
      const id = await ownedId(ctx, deps);
      ctx.status = 202;
      ctx.body = present(await deps.commands.delete(id, actorOf(callerOf(ctx))));
    },

    async connectConnector(ctx, input) {
      // The record is read for admins too: its URL decides whether a token may travel there.
      const { id, url, preset: presetRef } = await existing(ctx, deps);
      const preset = presetRef ? findPreset(presetRef.url, await presetsOf(deps)) : undefined;
      const given = withWorkloadIdentity(input.body(), preset, callerOf(ctx), deps.workloadIdentity ?? false);
      const body = withPresetEnterpriseManaged(withPresetClientCredentials(given, preset), preset);
      const inputs = await upstreamInputs(url, preset, body, deps);
      // With callers authenticated, a redirect_url must be on the allow-list: anyone may otherwise
      // send a user's browser, and the connector's id, wherever they like.
      const allowed = deps.allowedRedirectOrigins ?? (deps.callersAuthenticated ? [] : null);
      if (body.redirect_url && allowed && !allowed.includes(new URL(body.redirect_url).origin)) {
        throw unprocessable('redirect_url', 'redirect_url is not on the allowed origins (CONNECTOR__ALLOWED_REDIRECT_ORIGINS)');
      }
      const upstream = inputs.boundUrl ?? url;
      if (body.access_token || inputs.headers.length) await refuseTokenOverPlainHttp(upstream, deps.addressPolicy);
      await checkSignInAssertion(body, callerOf(ctx), deps.authenticator);
      // The identity provider is contacted on the caller's word, like the connector's own URL.
      if (body.idp_token_endpoint) await refuseForbiddenHost(body.idp_token_endpoint, deps.addressPolicy, 'idp_token_endpoint');
      const respondAsync = /\brespond-async\b/i.test(ctx.get('prefer'));
      const view = await deps.commands.connect(id, body, respondAsync, actorOf(callerOf(ctx)), inputs);
      ctx.status = respondAsync && view.state === 'connecting' ? 202 : 200;
      if (ctx.status === 202) ctx.set('Preference-Applied', 'respond-async');
      ctx.body = present(view);
    },

    async disconnectConnector(ctx) {
      const id = await ownedId(ctx, deps);
      ctx.body = present(await deps.commands.disconnect(id, actorOf(callerOf(ctx))));
    },

    async listConnectorEvents(ctx, input) {
      const id = (await existing(ctx, deps)).id;
      const query = input.query();
      const page = await pageOr422(() => deps.store.listEvents(id, { limit: query.limit, pageToken: query.page_token }));
      ctx.body = { ...page, items: page.items.map(({ connectorId, ...e }) => e) };
    },

    // The per-call audit of the connector's MCP traffic, newest first.
    async listConnectorCalls(ctx, input) {
      const id = (await existing(ctx, deps)).id;
      const { page_token, ...query } = input.query();
      ctx.body = await pageOr422(() => deps.callStore.list(id, { ...query, pageToken: page_token }));
    },

    // The tasks the service runs for the connector's callers (MCP Tasks), newest first: never their contents.
    async listConnectorTasks(ctx, input) {
      const id = (await existing(ctx, deps)).id;
      const query = input.query();
      ctx.body = await pageOr422(() => deps.tasks.list({ connector_id: id }, { limit: query.limit, pageToken: query.page_token }));
    },
  };
}

/**
 * The id of the path, 404 when it cannot be one. Commands go to the workflow without reading
 * the record first: the workflow is the source of truth, and answers 404 itself when it has ended.
 */
function connectorIdOf(ctx: Context): string {
  const id = String(ctx.params.id ?? '').toLowerCase();
  if (!isConnectorId(id)) throw new ProblemError(404, 'no such connector');
  return id;
}

/**
 * The record, if the caller may see it; another owner's connector is as absent as a missing one.
 * Whose it is, the workflow says (workflow-owners.ts): a record rewritten in the database grants
 * nothing, and is answered with its workflow's owner.
 */
async function existing(ctx: Context, deps: ConnectorRouteDeps): Promise<ConnectorRecord> {
  const id = connectorIdOf(ctx);
  const caller = callerOf(ctx);
  const [record, owner] = await Promise.all([deps.store.get(id), deps.owners.ownerOf(id)]);
  // No workflow: admins still see a record left behind; nobody else has anything there.
  if (!record || (owner ? !mayAccess(caller, owner.owner) : !caller.admin)) throw new ProblemError(404, 'no such connector');
  return owner ? withWorkflowOwner(record, owner, deps.logger) : record;
}

/** A non-admin's list page without the records whose workflow names another owner. */
async function ownedItems(items: ConnectorRecord[], caller: Caller, deps: ConnectorRouteDeps): Promise<ConnectorRecord[]> {
  const owners = await Promise.all(items.map((item) => deps.owners.ownerOf(item.id)));
  return items.flatMap((item, i) => {
    const owner = owners[i];
    return owner && mayAccess(caller, owner.owner) ? [withWorkflowOwner(item, owner, deps.logger)] : [];
  });
}

/**
 * The record with its workflow's owner. They differ only when something other than the service
 * wrote the database: said in the log (the record is put right by the connector's next
 * transition, whose projection writes the workflow's owner back).
 */
function withWorkflowOwner(record: ConnectorRecord, owner: WorkflowOwner, logger: Logger): ConnectorRecord {
  if (record.created_by === owner.owner) return record;
  logger.warn({ connectorId: record.id, recordOwner: record.created_by, workflowOwner: owner.owner },
    'a connector record names another owner than its workflow: the database was written by something other than this service; the workflow\'s owner decides');
  return { ...record, created_by: owner.owner, created_by_name: owner.name };
}

/**
 * The id of a connector the caller may act on. An admin's command goes to the workflow without
 * reading the record (the workflow answers 404 itself when it has ended); anyone else's is
 * checked against the workflow's owner, which never changes.
 */
async function ownedId(ctx: Context, deps: ConnectorRouteDeps): Promise<string> {
  if (callerOf(ctx).admin) return connectorIdOf(ctx);
  return (await existing(ctx, deps)).id;
}

/** CONNECTOR__MAX_CONNECTORS_PER_OWNER (api/owner-quota.ts); the list index's count is the floor. */
function withQuotaSlot<T>(caller: Caller, id: string, deps: ConnectorRouteDeps, create: () => Promise<T>): Promise<T> {
  return withOwnerSlot(caller.subject, id, {
    slots: deps.store.slots, limit: deps.maxConnectorsPerOwner, what: 'connectors', variable: 'CONNECTOR__MAX_CONNECTORS_PER_OWNER',
    count: (owner) => deps.store.countOwnedBy(owner), exists: async (connectorId) => (await deps.store.get(connectorId)) !== null,
  }, create);
}

/**
 * The connect's headers and URL variables (a remote's) or env values (a stdio server's), checked
 * against the connector's preset as the catalog has it now; the URL the variables make passes the
 * address guard like any connector URL.
 */
async function upstreamInputs(url: string, preset: Preset | undefined, body: ConnectRequest, deps: ConnectorRouteDeps): Promise<ConnectInputs> {
  if (isStdioUrl(url) && (body.headers || body.variables)) throw unprocessable(body.headers ? 'headers' : 'variables', 'only for a remote MCP server');
  if (!isStdioUrl(url) && body.env) throw unprocessable('env', 'only for a stdio MCP server');
  const inputs = connectInputs(url, preset, body);
  if (Array.isArray(inputs)) throw new ProblemError(422, 'the connect request is invalid', undefined, inputs);
  if (inputs.boundUrl) await refuseForbiddenHost(inputs.boundUrl, deps.addressPolicy, 'variables');
  return inputs;
}

async function refuseForbiddenHost(url: string, policy: AddressPolicy, field = 'url'): Promise<void> {
  try {
    await checkHost(new URL(url).hostname, policy);
  } catch (err) {
    if (err instanceof BlockedAddressError) throw unprocessable(field, `the URL is refused: ${err.message}`);
    // A name that does not resolve now may resolve later; connect reports it then.
  }
}

/**
 * A given token is refused before anything is sent when the URL is one it may not travel to
 * (platform/token-transport.ts); an OAuth connect is refused the same way once the server asks for
 * authorization (oauthBegin), while a server that needs no token stays reachable.
 */
async function refuseTokenOverPlainHttp(url: string, policy: AddressPolicy): Promise<void> {
  if (isStdioUrl(url)) return;
  const why = await urlTokenTransportRefusal(new URL(url), policy);
  if (why) throw new ProblemError(422, clearTextRefusal(why), 'token-over-plain-http');
}

async function pageOr422<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof InvalidPageToken) throw unprocessable('page_token', err.message);
    throw err;
  }
}

async function presetsOf(deps: ConnectorRouteDeps): Promise<readonly Preset[]> {
  if (!deps.catalog) return deps.presets;
  await deps.catalog.reload();
  return deps.catalog.presets;
}

function unprocessable(path: string, message: string): ProblemError {
  return new ProblemError(422, message, undefined, [{ path, message }]);
}
