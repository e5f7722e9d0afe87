// Records the histories that test/workflows/replay.test.ts replays on every `npm test`. Run it
// (`npx tsx test/workflows/record-histories.ts [scenario…]`) only when a change to the workflow is meant to
// change its commands, together with a patched() or a new workflow type (docs/development.md, "Versioning"),
// and keep the old files next to the new ones: running workflows still have the old histories.
import fs from 'node:fs';
import { Context } from '@temporalio/activity';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import proto from '@temporalio/proto';

const { temporal } = proto;
import {
  type ConnectInput, type ConnectorInit, callbackUpdate, connectUpdate, deleteUpdate, disconnectUpdate, refreshUpdate, routeQuery, upstreamRefusedUpdate, viewQuery,
} from '../../workflows/messages';
import { CHANGES_BUILT_IN } from '../../workflows/code-changes';
import { continuedFrom } from '../helpers/history-values';
import { authorizeAnswer, startHarness, tokens, transientFailure, until, type Harness } from './support/workflow-harness';

const OUT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'histories');
const actor = { actor: 'recorder' };
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
type Handle = Awaited<ReturnType<Harness['start']>>;

/** A stub whose first try in a workflow task fails (it leaves its task); every other call answers. */
function leavesOnce<T>(answer: () => T) {
  let tried = false;
  return async () => {
    if (Context.current().info.isLocal && !tried) {
      tried = true;
      throw transientFailure();
    }
    return answer();
  };
}

const SCENARIOS: Record<string, (h: Harness) => Promise<Handle>> = {
  async 'token-connect'(h) {
    const handle = await h.start();
    await handle.executeUpdate(connectUpdate, { args: [{ ...actor, accessToken: 'sealed-token-1' as never }] });
    await handle.executeUpdate(upstreamRefusedUpdate, { args: [{ usedToken: 'sealed-token-1' as never, status: 401, challenge: null }] });
    await handle.executeUpdate(connectUpdate, { args: [{ ...actor, accessToken: 'sealed-token-2' as never }] });
    await handle.executeUpdate(disconnectUpdate, { args: [actor] });
    await handle.executeUpdate(deleteUpdate, { args: [actor] });
    return handle;
  },
  async 'oauth-connect-refresh'(h) {
    h.stubs.behaviour.oauthAuthorize = async () => authorizeAnswer('h-record', 60_000);
    h.stubs.behaviour.oauthComplete = async () => tokens(1_500);
    h.stubs.behaviour.oauthRefresh = async () => tokens(1_500);
    const handle = await h.start();
    await handle.executeUpdate(connectUpdate, { args: [{ ...actor, redirectUrl: 'http://127.0.0.1:1/done' }] });
    await handle.executeUpdate(callbackUpdate, { args: [{ stateHash: 'h-record', callback: 'sealed-callback' as never }] });
    await until(() => (h.stubs.called('oauthRefresh').length >= 2 ? true : undefined), 'two refreshes');
    await handle.executeUpdate(deleteUpdate, { args: [actor] });
    return handle;
  },
  // The same story since renewals run in the timer's workflow task (patched 'refresh-in-workflow-task').
  'oauth-refresh-in-task': (h) => SCENARIOS['oauth-connect-refresh']!(h),
  // Since calls in a task get one try and leave it for a regular activity (patched 'in-task-try-once'):
  // a token probe that left its task, then refreshes, the first of which left its task too.
  async 'in-task-try-once'(h) {
    h.stubs.behaviour.probeServer = leavesOnce(() => ({ serverName: 'stub', protocolVersion: '2025-11-25' })) as never;
    h.stubs.behaviour.oauthAuthorize = async () => authorizeAnswer('h-try-once', 60_000);
    h.stubs.behaviour.oauthComplete = async () => tokens(1_500);
    h.stubs.behaviour.oauthRefresh = leavesOnce(() => tokens(1_500)) as never;
    const handle = await h.start();
    await handle.executeUpdate(connectUpdate, { args: [{ ...actor, accessToken: 'sealed-token-1' as never }] });
    await handle.executeUpdate(connectUpdate, { args: [{ ...actor, redirectUrl: 'http://127.0.0.1:1/done' }] });
    await handle.executeUpdate(callbackUpdate, { args: [{ stateHash: 'h-try-once', callback: 'sealed-callback' as never }] });
    await until(() => (h.stubs.called('oauthRefresh').length >= 3 ? true : undefined), 'a refresh out of its task and one in it');
    await handle.executeUpdate(deleteUpdate, { args: [actor] });
    return handle;
  },
  // Since the floor between renewals (patched 'refresh-floor'): tokens of 0.3 s renewed 1.5 s
  // apart, with no race against their expiry; then the proxy's renewal of an expired token.
  async 'refresh-floor'(h) {
    h.stubs.behaviour.oauthAuthorize = async () => authorizeAnswer('h-floor', 60_000);
    h.stubs.behaviour.oauthComplete = async () => tokens(300);
    h.stubs.behaviour.oauthRefresh = async () => tokens(300);
    const handle = await h.start({ minRefreshIntervalSeconds: 1.5 });
    await handle.executeUpdate(connectUpdate, { args: [{ ...actor, redirectUrl: 'http://127.0.0.1:1/done' }] });
    await handle.executeUpdate(callbackUpdate, { args: [{ stateHash: 'h-floor', callback: 'sealed-callback' as never }] });
    await until(() => (h.stubs.called('oauthRefresh').length >= 2 ? true : undefined), 'two renewals a floor apart');
    const { token } = await handle.query(routeQuery);
    await sleep(400);
    await handle.executeUpdate(refreshUpdate, { args: [{ usedToken: token }] });
    await handle.executeUpdate(deleteUpdate, { args: [actor] });
    return handle;
  },
  // Since renewals race their token's expiry only once they leave their task (patched
  // 'expiry-race-on-leaving'): a renewal in its task, one that left it and ended before the expiry,
  // one the expiry overtook (the connection lost, then back), and one in its task again.
  'expiry-race-on-leaving': (h) => expiryRaceStory(h),
  // Since a run takes the patched changes its input names (ConnectorInit.changesBuiltIn) without
  // asking patched(), so without markers: a token probe that left its task, then the story above.
  async 'changes-built-in'(h) {
    h.stubs.behaviour.probeServer = leavesOnce(() => ({ serverName: 'stub', protocolVersion: '2025-11-25' })) as never;
    return expiryRaceStory(h, { changesBuiltIn: [...CHANGES_BUILT_IN] }, { ...actor, accessToken: 'sealed-token-1' as never });
  },
  async 'stdio-connect'(h) {
    let watches = 0;
    h.stubs.behaviour.watchWorkload = async () => (++watches === 1 ? sleep(500).then(() => ({ kind: 'exited', reason: 'the stdio server exited with code 1' }) as never) : Context.current().cancelled as never);
    const handle = await h.start({}, { url: 'mcp+stdio://recorded', preset: { url: 'mcp+stdio://recorded' } });
    await handle.executeUpdate(connectUpdate, { args: [{ ...actor, accessToken: 'sealed-token-1' as never }] });
    await until(async () => ((await handle.query(viewQuery)).state === 'disconnected' ? true : undefined), 'the workload to exit');
    await handle.executeUpdate(connectUpdate, { args: [actor] });
    await handle.executeUpdate(deleteUpdate, { args: [actor] });
    return handle;
  },
  async 'delete-while-connecting'(h) {
    h.stubs.behaviour.oauthProbe = () => sleep(3_000).then(() => ({ kind: 'open', protocolVersion: '2025-06-18' }) as never);
    const handle = await h.start();
    void handle.executeUpdate(connectUpdate, { args: [actor] }).catch(() => undefined);
    await until(() => (h.stubs.called('oauthProbe').length ? true : undefined), 'the connect to begin');
    await handle.executeUpdate(deleteUpdate, { args: [actor] });
    return handle;
  },
  async 'continue-as-new'(h) {
    h.stubs.behaviour.oauthAuthorize = async () => authorizeAnswer('h-can', 60_000);
    h.stubs.behaviour.oauthComplete = async () => tokens(600);
    h.stubs.behaviour.oauthRefresh = async () => tokens(600);
    const handle = await h.start({ historyLimit: 40 });
    await handle.executeUpdate(connectUpdate, { args: [actor] });
    await handle.executeUpdate(callbackUpdate, { args: [{ stateHash: 'h-can', callback: 'sealed-callback' as never }] });
    const first = (await handle.describe()).runId;
    await until(async () => ((await h.client.workflow.getHandle(handle.workflowId).describe()).runId !== first ? true : undefined), 'a new run');
    await h.client.workflow.getHandle(handle.workflowId).executeUpdate(deleteUpdate, { args: [actor] });
    return h.client.workflow.getHandle(handle.workflowId, first); // the first run: it ends in continue-as-new
  },
  // Since a connect settled into a refresh wait continues as new at once (ConnectorInit.freshRunAfterConnect).
  async 'continue-after-connect'(h) {
    h.stubs.behaviour.oauthAuthorize = async () => authorizeAnswer('h-fresh', 60_000);
    h.stubs.behaviour.oauthComplete = async () => tokens(1_500);
    h.stubs.behaviour.oauthRefresh = async () => tokens(1_500);
    const handle = await h.start({}, { freshRunAfterConnect: true });
    await handle.executeUpdate(connectUpdate, { args: [{ ...actor, redirectUrl: 'http://127.0.0.1:1/done' }] });
    await handle.executeUpdate(callbackUpdate, { args: [{ stateHash: 'h-fresh', callback: 'sealed-callback' as never }] });
    await until(() => (h.stubs.called('oauthRefresh').length >= 1 ? true : undefined), 'a refresh in the new run');
    const latest = h.client.workflow.getHandle(handle.workflowId);
    const connectRun = continuedFrom(await latest.fetchHistory());
    await latest.executeUpdate(deleteUpdate, { args: [actor] });
    if (!connectRun) throw new Error('the connect\'s run did not continue as new');
    return h.client.workflow.getHandle(handle.workflowId, connectRun); // it ends in continue-as-new
  },
};

/** A renewal in its task, one that left it and ended before the expiry, one the expiry overtook, one in its task again; after `tokenConnect`, if given. */
async function expiryRaceStory(h: Harness, init: Partial<ConnectorInit> = {}, tokenConnect?: ConnectInput): Promise<Handle> {
  let renewals = 0;
  let activityTries = 0;
  h.stubs.behaviour.oauthAuthorize = async () => authorizeAnswer('h-race', 60_000);
  h.stubs.behaviour.oauthComplete = async () => tokens(1_500);
  h.stubs.behaviour.oauthRefresh = (async () => {
    if (Context.current().info.isLocal) {
      renewals += 1;
      if (renewals === 2 || renewals === 3) throw transientFailure();
      return tokens(1_500);
    }
    // The third renewal's first try as an activity fails: its retry, a second later, is past the expiry.
    if (++activityTries === 2) throw transientFailure();
    return tokens(1_500);
  }) as never;
  const handle = await h.start({}, init);
  if (tokenConnect) await handle.executeUpdate(connectUpdate, { args: [tokenConnect] });
  await handle.executeUpdate(connectUpdate, { args: [{ ...actor, redirectUrl: 'http://127.0.0.1:1/done' }] });
  await handle.executeUpdate(callbackUpdate, { args: [{ stateHash: 'h-race', callback: 'sealed-callback' as never }] });
  await until(() => (renewals >= 4 ? true : undefined), 'four renewals, two of which left their task');
  await handle.executeUpdate(deleteUpdate, { args: [actor] });
  return handle;
}

const h = await startHarness();
try {
  fs.mkdirSync(OUT, { recursive: true });
  // Names on the command line record those alone: files recorded before a patch stay as they were.
  const only = process.argv.slice(2);
  for (const [name, run] of Object.entries(SCENARIOS).filter(([name]) => only.length === 0 || only.includes(name))) {
    const handle = await run(h);
    h.stubs.behaviour = {};
    if (!name.startsWith('continue-')) await handle.result();
    const history = await handle.fetchHistory();
    // Binary protobuf, as the service sends it; `temporal workflow show` prints one for people.
    fs.writeFileSync(path.join(OUT, `${name}.binpb`), temporal.api.history.v1.History.encode(history).finish());
    console.log(`${name}: ${history.events?.length} events`);
  }
} finally {
  await h.stop();
}
