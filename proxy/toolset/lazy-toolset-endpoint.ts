// The toolsets' MCP path, loaded on its first request, so that a proxy process serving only
// connectors' MCP paths never holds its modules. (It once brought the MCP SDK's server and client,
// 7 MB of heap; the toolset router needs neither.) Until it is loaded there is no tool list or
// stream to tell of a change, so changes are dropped.
import type { ServerResponse } from 'node:http';
import type { Logger } from '../../platform/logger';
import { ProblemError } from '../../contract/problem';
import { sendProblem } from '../problem-response';
import type { ToolsetEndpoint, ToolsetEndpointOptions } from './toolset-endpoint';

export function lazyToolsetEndpoint(options: ToolsetEndpointOptions): ToolsetEndpoint {
  let loaded: ToolsetEndpoint | undefined;
  let loading: Promise<ToolsetEndpoint> | undefined;
  const load = () => (loading ??= import('./toolset-endpoint').then((module) => (loaded = module.createToolsetEndpoint(options))));
  return {
    handle(req, res, toolsetId) {
      if (loaded) return loaded.handle(req, res, toolsetId);
      // The request waits, unread, while the module loads: its body stays in the socket's buffer.
      load().then((endpoint) => endpoint.handle(req, res, toolsetId), (err: Error) => unavailable(options.logger, res, err));
    },
    toolsetChanged: (toolsetId) => loaded?.toolsetChanged(toolsetId),
    memberChanged: (connectorId) => loaded?.memberChanged(connectorId),
    async close() {
      const endpoint = await loading?.catch(() => undefined);
      await endpoint?.close();
    },
  };
}

function unavailable(logger: Logger, res: ServerResponse, err: Error): void {
  logger.error({ err }, 'the toolsets\' MCP path could not be loaded');
  sendProblem(res, new ProblemError(503, 'The toolsets\' MCP path is not available.'));
}
