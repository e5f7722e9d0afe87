// What a stock MCP client does to an MCP path, as the chart-shaped test counts it: connect (SDK v1,
// or SDK v2 negotiating the newest revision both sides speak), 20 tools/call, a progress tool whose
// notifications must arrive while the call runs, and (in a 2025 session) the GET stream a client
// opens for server messages, which must answer its headers at once. Every step is counted, never
// thrown, so that the test can say how many of each succeeded. The client's own GET stream is
// open while it works; the GET stream checked is opened on its session once it is closed.
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';

export interface ScenarioTools {
  echo: string;
  /** Sends `count` progress notifications, then answers. */
  progress: string;
}

export interface ScenarioResult {
  sdk: 'v1' | 'v2';
  protocolVersion: string | null;
  calls: number;
  callsSucceeded: number;
  /** The GET stream's status (null: no session, so no GET stream in this revision). */
  getStream: number | null;
  progressReceived: number;
  progressExpected: number;
  errors: string[];
}

const CALLS = 20;
const PROGRESS = 3;

export async function runClientScenario(sdk: 'v1' | 'v2', url: string, headers: Record<string, string>, tools: ScenarioTools): Promise<ScenarioResult> {
  const result: ScenarioResult = { sdk, protocolVersion: null, calls: CALLS, callsSucceeded: 0, getStream: null, progressReceived: 0, progressExpected: PROGRESS, errors: [] };
  const client = sdk === 'v1'
    ? new ClientV1({ name: 'chart-shape-v1', version: '1.0.0' })
    : new ClientV2({ name: 'chart-shape-v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  const transport = sdk === 'v1' ? new TransportV1(new URL(url), { requestInit: { headers } }) : new TransportV2(new URL(url), { requestInit: { headers } });
  try {
    await (client as ClientV1).connect(transport as TransportV1);
  } catch (err) {
    result.errors.push(`connect: ${(err as Error).message}`);
    return result;
  }
  result.protocolVersion = transport.protocolVersion ?? (client as ClientV2).getNegotiatedProtocolVersion?.() ?? null;
  // SDK v1 takes (params, resultSchema, options); SDK v2 (params, options).
  const call = (params: { name: string; arguments: Record<string, unknown> }, options?: { onprogress: () => void }) => (sdk === 'v1'
    ? (client as ClientV1).callTool(params, undefined, options)
    : (client as ClientV2).callTool(params, options));
  for (let i = 0; i < CALLS; i++) {
    try {
      const answer = await call({ name: tools.echo, arguments: { text: `call ${i}` } });
      if (JSON.stringify(answer.content).includes(`call ${i}`)) result.callsSucceeded++;
      else result.errors.push(`call ${i}: ${JSON.stringify(answer).slice(0, 200)}`);
    } catch (err) {
      result.errors.push(`call ${i}: ${(err as Error).message}`);
    }
  }
  try {
    await call({ name: tools.progress, arguments: { count: PROGRESS, delayMs: 20 } }, { onprogress: () => void result.progressReceived++ });
  } catch (err) {
    result.errors.push(`progress: ${(err as Error).message}`);
  }
  // The client's own GET stream goes with it; the session stays, and a GET stream of its own is opened on it.
  const sessionId = transport.sessionId;
  await client.close().catch(() => undefined);
  if (sessionId) result.getStream = await getStreamStatus(url, headers, sessionId, result.protocolVersion);
  // 409: the server still holds the client's own stream (its end travels through the proxy): again, once it has gone.
  for (let i = 0; i < 20 && result.getStream === 409; i++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    result.getStream = await getStreamStatus(url, headers, sessionId!, result.protocolVersion);
  }
  return result;
}

/** Opens the session's GET stream and answers its status once the headers are in (then drops it). */
async function getStreamStatus(url: string, headers: Record<string, string>, sessionId: string, protocolVersion: string | null): Promise<number> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 10_000);
  try {
    const response = await fetch(url, {
      method: 'GET', signal: controller.signal,
      headers: { ...headers, accept: 'text/event-stream', 'mcp-session-id': sessionId, ...(protocolVersion ? { 'mcp-protocol-version': protocolVersion } : {}) },
    });
    return response.status;
  } catch {
    return 0; // no headers within 10 s
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

export function describeScenario(r: ScenarioResult): string {
  const stream = r.getStream === null ? 'no GET stream' : `GET stream ${r.getStream}`;
  return `SDK ${r.sdk} at ${r.protocolVersion ?? '?'}: ${r.callsSucceeded}/${r.calls} calls, progress ${r.progressReceived}/${r.progressExpected}, ${stream}`
    + (r.errors.length ? `; first error: ${r.errors[0]}` : '');
}
