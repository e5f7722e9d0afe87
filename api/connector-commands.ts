// The API's side of the workflow: create (Update-with-Start), connect, disconnect, delete.
// Secrets are sealed here, before anything reaches Temporal.
import type { ConnectorRecord } from '../contract/connector-record';
import { randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import { secretContext, type SecretBox } from '../platform/secret-box';
import type { ConnectRequest, Preset, UpstreamTransport } from '../contract/schemas';
import type { connectorWorkflow } from '../workflows/connector-workflow';
import {
  approvalRulesUpdate, connectUpdate, connectorWorkflowId, createdUpdate, deleteUpdate, disconnectUpdate, type ConnectorInit,
} from '../workflows/messages';
import { CHANGES_BUILT_IN } from '../workflows/code-changes';
import type { ApprovalRule } from '../contract/approvals';
import { toProblemError } from './temporal-errors';
import { envPurpose, headerPurpose, type UpstreamBinding } from '../contract/upstream-inputs';
import type { ConnectInputs } from '../catalog/connect-inputs';
import { sealGrants } from './connect-grants';
import { connectorQueue } from '../config/workflow-shards';

export interface CommandDeps {
  temporal: Client;
  taskQueue: string;
  /** How many task queues the workflows spread over (config/workflow-shards.ts); absent: 1, the base queue only. */
  shards?: number;
  secrets: SecretBox;
  settings: ConnectorInit['settings'];
  /** Told after every connect, disconnect and delete, whatever its outcome. */
  onChanged?: (connectorId: string) => void;
}

export interface CreateInput {
  /** Chosen by the caller when it must be known before the workflow starts (the quota's slot); else a new one. */
  id?: string;
  url: string;
  metadata?: Record<string, string>;
  clientId?: string;
  clientSecret?: string;
  preset?: Preset;
  /** The body's transport; absent: the preset's, else Streamable HTTP. */
  transport?: UpstreamTransport;
  createdBy: string | null;
  createdByName: string | null;
  /** The owner's approval rules (absent or empty: none). */
  approvalRules?: ApprovalRule[];
}

export class ConnectorCommands {
  constructor(private readonly deps: CommandDeps) {}

  /** Starting the workflow and writing the record are one step: the Update returns once it is written. */
  async create(input: CreateInput): Promise<ConnectorRecord> {
    const id = input.id ?? randomUUID();
    const preset = input.preset;
    const clientSecret = input.clientId ? input.clientSecret : undefined;
    // A preset's credentials and env values stay in the worker's configuration: history only
    // names the preset, so they never reach it, not even sealed.
    const init: ConnectorInit = {
      id,
      url: input.url,
      metadata: input.metadata ?? presetMetadata(preset),
      preset: preset ? { url: preset.url } : null,
      presetClient: Boolean(!input.clientId && preset?.client_id),
      createdBy: input.createdBy,
      createdByName: input.createdByName,
      clientId: input.clientId ?? null,
      clientSecret: clientSecret ? this.deps.secrets.seal(clientSecret, secretContext(id, 'client_secret')) : null,
      ...((input.transport ?? preset?.transport) === 'sse' ? { transport: 'sse' as const } : {}),
      ...(input.approvalRules?.length ? { approvalRules: input.approvalRules } : {}),
      freshRunAfterConnect: true,
      changesBuiltIn: [...CHANGES_BUILT_IN],
      settings: this.deps.settings,
    };
    const start = new WithStartWorkflowOperation<typeof connectorWorkflow>('connectorWorkflow', {
      workflowId: connectorWorkflowId(id),
      taskQueue: connectorQueue(this.deps.taskQueue, this.deps.shards ?? 1, id),
      args: [{ init }],
      workflowIdConflictPolicy: 'USE_EXISTING',
      // The owner where Temporal answers without a worker (describe): ownership decisions read it
      // there, never from the database (api/workflow-owners.ts).
      memo: ownerMemo(input.createdBy, input.createdByName),
      // How soon a task a dead worker held (a token connect's probe runs inside one) goes to
      // another worker: Temporal's default is 10 s. A task takes milliseconds; one that runs a
      // longer local activity is kept alive by the worker's own heartbeats.
      workflowTaskTimeout: '2s',
    });
    return this.call(() => this.deps.temporal.workflow.executeUpdateWithStart(createdUpdate, { startWorkflowOperation: start }));
  }

  /** `inputs`: the connect's headers and variables, checked against the preset (catalog/connect-inputs.ts). */
  connect(id: string, body: ConnectRequest, respondAsync: boolean, actor: string, inputs?: ConnectInputs) {
    const accessToken = body.access_token ? this.deps.secrets.seal(body.access_token, secretContext(id, 'access_token')) : undefined;
    const grants = sealGrants(id, body, this.deps.secrets);
    const binding = inputs ? this.sealBinding(id, inputs) : undefined;
    return this.change(id, () =>
      this.handle(id).executeUpdate(connectUpdate, { args: [{ actor, accessToken, ...grants, redirectUrl: body.redirect_url, respondAsync, binding }] }),
    );
  }

  /**
   * Every header value sealed, secret or not (the preset's word decides only what is shown, and
   * sealing them all leaves nothing to get wrong): only ciphertext reaches history.
   */
  private sealBinding(id: string, inputs: ConnectInputs): UpstreamBinding | undefined {
    if (!inputs.headers.length && !inputs.env.length && !inputs.boundUrl) return undefined;
    const seal = (value: string, purpose: string) => this.deps.secrets.seal(value, secretContext(id, purpose));
    const headers = inputs.headers.map((h) => ({ name: h.name, value: seal(h.value, headerPurpose(h.name)) }));
    const env = inputs.env.map((e) => ({ name: e.name, value: seal(e.value, envPurpose(e.name)) }));
    return { url: inputs.boundUrl, variables: inputs.variables, headers, ...(env.length ? { env } : {}) };
  }

  disconnect(id: string, actor: string) {
    return this.change(id, () => this.handle(id).executeUpdate(disconnectUpdate, { args: [{ actor }] }));
  }

  /** Replaces the owner's approval rules; the proxies' routes carry them, so they hear of it. */
  setApprovalRules(id: string, rules: ApprovalRule[], actor: string) {
    return this.change(id, () => this.handle(id).executeUpdate(approvalRulesUpdate, { args: [{ actor, rules }] }));
  }

  delete(id: string, actor: string) {
    return this.change(id, () => this.handle(id).executeUpdate(deleteUpdate, { args: [{ actor }] }));
  }

  /** A command that may change the connector's route: whoever caches routes hears of it. */
  private async change<T>(id: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await this.call(fn);
    } finally {
      this.deps.onChanged?.(id);
    }
  }

  private handle(id: string) {
    return this.deps.temporal.workflow.getHandle(connectorWorkflowId(id));
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw toProblemError(err);
    }
  }
}

/** The memo a connector's workflow starts with: its owner, fixed for its life. */
export function ownerMemo(owner: string | null, ownerName: string | null): Record<string, unknown> {
  return { [OWNER_MEMO]: { owner, name: ownerName } };
}

export const OWNER_MEMO = 'connector-owner';

function presetMetadata(preset: Preset | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(preset?.metadata ?? {})) if (typeof v === 'string') out[k] = v;
  return out;
}
