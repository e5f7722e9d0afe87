// Opening the service's dependencies from configuration: MongoDB, Temporal, the secret key,
// the guarded fetch. Shared by every entry point so that each process is wired the same way.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { MongoClient } from 'mongodb';
import { Client, Connection, type WorkflowClientInterceptor } from '@temporalio/client';
import type { Config, TemporalAccess } from '../config/config';
import type { Logger } from '../platform/logger';
import { SecretBox, parseKey } from '../platform/secret-box';
import { closableRetries } from './closable-retries';
import { ensurePrivateDir, ensurePrivateFile } from './private-files';
import { CallAuditStore } from '../store/call-audit-store';
import { ChangeFeed } from '../store/change-feed';
import { ConnectorStore } from '../store/connector-store';
import { OAuthStore } from '../store/oauth-store';
import { ToolsetStore } from '../store/toolset-store';
import { ToolsetInputStore } from '../store/toolset-input-store';
import { ToolsetSessionStore } from '../store/toolset-session-store';
import { TaskStore } from '../store/task-store';

export interface Mongo {
  client: MongoClient;
  store: ConnectorStore;
  oauthStore: OAuthStore;
  /** The per-call audit of MCP traffic. */
  callStore: CallAuditStore;
  toolsets: ToolsetStore;
  /** What proxies in other processes must forget (store/change-feed.ts). */
  changes: ChangeFeed;
  /** The 2025-11-25 toolset sessions, which every proxy replica serves. */
  toolsetSessions: ToolsetSessionStore;
  toolsetInputs: ToolsetInputStore;
  /** The tasks the service owns, as their connectors' owners list them. */
  tasks: TaskStore;
}

export async function openMongo(uri: string, database: string, callAuditDays: number): Promise<Mongo> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000, appName: 'connector-registry' });
  await client.connect();
  const store = new ConnectorStore(client.db(database));
  await store.ensureIndexes();
  const oauthStore = new OAuthStore(client.db(database));
  await oauthStore.ensureIndexes();
  const callStore = new CallAuditStore(client.db(database), callAuditDays);
  await callStore.ensureIndexes();
  const toolsets = new ToolsetStore(client.db(database));
  await toolsets.ensureIndexes();
  const toolsetSessions = new ToolsetSessionStore(client.db(database));
  await toolsetSessions.ensureIndexes();
  const toolsetInputs = new ToolsetInputStore(client.db(database));
  await toolsetInputs.ensureIndexes();
  const tasks = new TaskStore(client.db(database));
  return { client, store, oauthStore, callStore, toolsets, toolsetSessions, toolsetInputs, tasks, changes: new ChangeFeed(client.db(database)) };
}

/** Connection options for Temporal's clients (the worker's native one takes the same fields). */
export function temporalConnectOptions(address: string, access: TemporalAccess = NO_ACCESS) {
  const { tls, apiKey } = access;
  return {
    address,
    ...(apiKey ? { apiKey } : {}),
    tls: tls ? {
      serverNameOverride: tls.serverName,
      serverRootCACertificate: tls.serverCa,
      clientCertPair: tls.clientCert && tls.clientKey ? { crt: tls.clientCert, key: tls.clientKey } : undefined,
    } : undefined,
  };
}

const NO_ACCESS: TemporalAccess = { tls: null, apiKey: null };

/**
 * `interceptors`: the tracing ones when traces are on (service/tracing.ts). The client retries
 * transient failures as the SDK does, and can be closed while a retry is due (closable-retries.ts).
 */
export async function openTemporal(address: string, namespace: string, access?: TemporalAccess, interceptors: WorkflowClientInterceptor[] = []): Promise<Client> {
  const connection = await Connection.connect({ ...temporalConnectOptions(address, access), interceptors: [closableRetries()] });
  return new Client({ connection, namespace, interceptors: { workflow: interceptors } });
}

/**
 * Readiness: Temporal answers a cheap call within a short deadline. The call goes through a
 * connection of its own without the client's retry interceptor: a retried call outliving the
 * check would otherwise still be running, on a closed channel, when the process stops.
 */
export function temporalCheck(address: string, access?: TemporalAccess) {
  let connection: Promise<Connection> | undefined;
  const check = async () => {
    connection ??= Connection.connect({ ...temporalConnectOptions(address, access), interceptors: [], connectTimeout: 2_000 });
    const c = await connection.catch((err) => {
      connection = undefined;
      throw err;
    });
    await c.withDeadline(Date.now() + 2_000, () => c.workflowService.getSystemInfo({}));
  };
  check.close = async () => {
    const c = await connection?.catch(() => undefined);
    await c?.close();
  };
  return check;
}

/**
 * The key from CONNECTOR__ENCRYPTION_KEY, or (embedded stack only) one generated once and kept
 * under DATA_DIR with owner-only permissions.
 */
export function encryptionKey(config: Config, logger: Logger): Buffer {
  if (config.encryptionKey) return config.encryptionKey;
  const file = path.join(config.dataDir, 'encryption.key');
  ensurePrivateDir(config.dataDir);
  if (fs.existsSync(file)) {
    ensurePrivateFile(file);
    return parseKey(fs.readFileSync(file, 'utf8'));
  }
  const key = crypto.randomBytes(32);
  fs.writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  logger.warn({ file }, 'CONNECTOR__ENCRYPTION_KEY is not set: generated a key and kept it in DATA_DIR; set the variable in production and keep the key safe');
  return key;
}

export const secretBox = (key: Buffer) => new SecretBox(key);
