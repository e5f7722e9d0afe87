// Whose a connector is, as its workflow says (the "view" query). MongoDB holds a projection that
// anything able to write the database can rewrite (issue 37: a workload on loopback set
// `created_by` on another owner's record, then used that connector's token through a toolset);
// the workflow's history can be changed by no one but the workflow. So every decision that lets a
// caller act on a connector or use its token asks here, never the record alone.
//
// The owner is fixed when the workflow starts (its memo, which Temporal's frontend answers
// without a worker: describe), and never changes. Connector ids are never reused: an answer stays true for the
// connector's whole life, so it is kept (bounded, least recently used out) and paid once per
// connector and process, or not at all by the process that created it. "No workflow" is not
// kept: a create may be on its way.
import type { Client } from '@temporalio/client';
import { isWorkflowGone } from '../platform/workflow-gone';
import { connectorWorkflowId } from '../workflows/messages';
import { toProblemError } from './temporal-errors';
import { OWNER_MEMO } from './connector-commands';

export interface WorkflowOwner {
  /** The qualified owner (`key:…`, `oidc:…`); null: made with caller authentication off. */
  owner: string | null;
  /** The readable name captured at creation. */
  name: string | null;
}

export interface OwnerSource {
  /** The connector's owner per its workflow; null when it has no workflow (never made, or deleted). */
  ownerOf(connectorId: string): Promise<WorkflowOwner | null>;
  /**
   * The owner a create of this process started the workflow with, as the workflow's own answer
   * to that create gave it (the memo and the workflow's input are set by the same start): kept
   * as if asked, so that the connect that usually follows asks Temporal nothing.
   */
  started?(connectorId: string, owner: WorkflowOwner): void;
}

const MAX_KEPT = 50_000;

export function workflowOwners(temporal: Client, maxKept = MAX_KEPT): OwnerSource {
  const kept = new Map<string, WorkflowOwner>();
  return {
    async ownerOf(connectorId) {
      const known = kept.get(connectorId);
      if (known) {
        // Refreshes its place: the least recently used goes first.
        kept.delete(connectorId);
        kept.set(connectorId, known);
        return known;
      }
      let answer: WorkflowOwner | null;
      try {
        answer = await ask(temporal, connectorId);
      } catch (err) {
        if (isWorkflowGone(err)) return null;
        throw toProblemError(err);
      }
      if (answer) keep(connectorId, answer);
      return answer;
    },
    started: keep,
  };

  function keep(connectorId: string, owner: WorkflowOwner): void {
    if (kept.size >= maxKept) kept.delete(kept.keys().next().value!);
    kept.set(connectorId, owner);
  }
}

async function ask(temporal: Client, connectorId: string): Promise<WorkflowOwner | null> {
  const handle = temporal.workflow.getHandle(connectorWorkflowId(connectorId));
  const memo = (await handle.describe()).memo?.[OWNER_MEMO] as Partial<WorkflowOwner> | undefined;
  // Every connector workflow starts with the memo (api/connector-commands.ts): one without it was
  // not started by this service, and is nobody's to use.
  if (!memo || !('owner' in memo)) return null;
  return { owner: memo.owner ?? null, name: memo.name ?? null };
}
