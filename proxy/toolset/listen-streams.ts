// A 2026-07-28 `subscriptions/listen` stream: the acknowledgment naming what the toolset honors of
// the client's filter (its tools', prompts' and resources' list changes; resource subscriptions
// are not offered), then a notification each time the toolset's lists may have changed
// (change-watch.ts), every message carrying the subscription's id; an SSE comment now and then
// keeps quiet streams open through intermediaries. It lasts until the client closes it.
import type { ServerResponse } from 'node:http';
import type { ChangeWatch } from './change-watch';
import { EventWriter } from './member-answer';
import { META, isObject, paramsOf, type RpcId, type RpcMessage } from './rpc';
import { onceClosed } from '../../platform/response-closed';

const KINDS = [['toolsListChanged', 'tools'], ['promptsListChanged', 'prompts'], ['resourcesListChanged', 'resources']] as const;
const KEEP_ALIVE_MS = 25_000;

export function serveListen(res: ServerResponse, message: RpcMessage & { id: RpcId }, toolsetId: string, watch: ChangeWatch): void {
  const asked = paramsOf(message).notifications;
  const honored = KINDS.filter(([flag]) => isObject(asked) && asked[flag] === true);
  const meta = { [META.subscriptionId]: message.id };
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
  const writer = new EventWriter(res);
  void writer.write({
    jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged',
    params: { _meta: meta, notifications: Object.fromEntries(honored.map(([flag]) => [flag, true])) },
  });
  const unwatch = honored.length === 0 ? () => undefined : watch.watch(toolsetId, () => {
    for (const [, kind] of honored) void writer.write({ jsonrpc: '2.0', method: `notifications/${kind}/list_changed`, params: { _meta: meta } });
  });
  const keepAlive = setInterval(() => res.write(':\n\n'), KEEP_ALIVE_MS).unref();
  onceClosed(res, () => {
    unwatch();
    clearInterval(keepAlive);
  });
}
