// A scripted stdio MCP server (a real process, speaking raw newline-delimited JSON-RPC) for what
// the reference servers cannot show: it records every message it receives, so a test can see the
// ids that reached the server side, and it sends requests and cancellations of its own on cue.
// Tools: received, hold (never answers), ask (roots/list under a string id, answered with the
// reply), ask-then-cancel (roots/list under id 99, then cancels it), crash ({ code }).
// With SCRIPTED_SILENT_DISCOVER=1 it never answers server/discover, like 2025 servers that ignore
// what comes before initialize.
import { createInterface } from 'node:readline';

type Id = string | number;
interface Message {
  jsonrpc: '2.0';
  id?: Id;
  method?: string;
  params?: { name?: string; arguments?: { code?: number }; protocolVersion?: string; [key: string]: unknown };
  result?: unknown;
  error?: unknown;
}

const received: Message[] = [];
const awaitingAnswer = new Map<Id, (answer: Message) => void>();
let lastServerRequest = 0;

const send = (message: object): void => {
  process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
};
const text = (id: Id, value: string): void => send({ id, result: { content: [{ type: 'text', text: value }] } });

const TOOLS = ['received', 'hold', 'ask', 'ask-then-cancel', 'crash'];

function onRequest(request: Message & { id: Id; method: string }): void {
  if (request.method === 'server/discover' && process.env.SCRIPTED_SILENT_DISCOVER === '1') return;
  switch (request.method) {
    case 'initialize':
      return send({
        id: request.id,
        result: {
          protocolVersion: request.params?.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'scripted-stdio-server', version: '1.0.0' },
          instructions: 'scripted for the gateway tests',
        },
      });
    case 'tools/list':
      return send({ id: request.id, result: { tools: TOOLS.map((name) => ({ name, inputSchema: { type: 'object' } })) } });
    case 'tools/call':
      return callTool(request.id, request.params?.name, request.params?.arguments?.code);
    case 'ping':
      return send({ id: request.id, result: {} });
    default:
      return send({ id: request.id, error: { code: -32601, message: `no ${request.method} here` } });
  }
}

function callTool(id: Id, name: string | undefined, code: number | undefined): void {
  switch (name) {
    case 'received':
      return text(id, JSON.stringify(received));
    case 'hold':
      return;
    case 'ask': {
      lastServerRequest += 1;
      const askId = `server-request-${lastServerRequest}`;
      awaitingAnswer.set(askId, (answer) => text(id, JSON.stringify(answer)));
      return send({ id: askId, method: 'roots/list' });
    }
    case 'ask-then-cancel':
      send({ id: 99, method: 'roots/list' });
      send({ method: 'notifications/cancelled', params: { requestId: 99, reason: 'changed my mind' } });
      return text(id, 'asked and cancelled');
    case 'crash':
      process.exit(code ?? 1);
    default:
      return send({ id, error: { code: -32602, message: `no tool ${name}` } });
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line) as Message;
  received.push(message);
  if (message.method !== undefined && message.id !== undefined) {
    onRequest(message as Message & { id: Id; method: string });
  } else if (message.method === undefined && message.id !== undefined) {
    awaitingAnswer.get(message.id)?.(message);
    awaitingAnswer.delete(message.id);
  }
});
