// A stdio MCP server that speaks only the 2026-07-28 revision, built with the SDK v2 server
// package: `serveStdio` with `legacy: 'reject'` answers an `initialize` with the
// unsupported-protocol-version error, so a gateway must find it with `server/discover`.
// Tools: echo ({ text }), slow-count ({ steps }, with progress), confirm (asks the client for
// input with an input_required result, the 2026 replacement of an elicitation request),
// add-tool ({ name }: registers a tool, so that the tool list changes).
import { inputRequired, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

function modernServer(): McpServer {
  const server = new McpServer(
    { name: 'modern-stdio-server', version: '2.0.0' },
    { capabilities: { tools: {} }, instructions: 'a 2026-07-28-only server for the gateway tests' },
  );
  server.registerTool('echo', { description: 'Echoes its text', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }));
  server.registerTool('slow-count', { description: 'Counts with progress', inputSchema: z.object({ steps: z.number().int() }) },
    async ({ steps }, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      for (let step = 1; step <= steps; step++) {
        if (token !== undefined) {
          await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: step, total: steps } });
        }
      }
      return { content: [{ type: 'text', text: `counted to ${steps}` }] };
    });
  server.registerTool('confirm', { description: 'Asks the client to confirm', inputSchema: z.object({}) },
    async (_args, ctx) => {
      const answer = ctx.mcpReq.inputResponses?.confirm;
      if (answer === undefined) {
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({ message: 'Confirm?', requestedSchema: z.object({ ok: z.boolean() }) }),
          },
        });
      }
      return { content: [{ type: 'text', text: `confirmed: ${JSON.stringify(answer)}` }] };
    });
  server.registerTool('add-tool', { description: 'Adds a tool', inputSchema: z.object({ name: z.string() }) },
    async ({ name }) => {
      server.registerTool(name, { description: 'Added at run time' }, async () => ({ content: [{ type: 'text', text: `I am ${name}` }] }));
      return { content: [{ type: 'text', text: `added ${name}` }] };
    });
  return server;
}

serveStdio(() => modernServer(), { legacy: 'reject' });
