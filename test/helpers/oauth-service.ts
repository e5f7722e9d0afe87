// What the OAuth service-level tests do to a running stack, as a user and an agent would: start a
// flow through the REST API, deliver the authorization server's redirect to the callback route,
// wait for a state, and use the connector through the proxy with the MCP SDK client.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { eventually, type ApiCall } from './test-stack';

export const CALLBACK_PATH = '/api/v1/connectors/oauth/callback';

export interface Delivered {
  status: number;
  location: string | null;
  text: string;
}

/**
 * Delivers a callback URL to the service listening on 127.0.0.1:`port`, whatever host the
 * redirect named: a BASE_URL such as https://connector.test resolves nowhere, and tests play the
 * browser that would have reached it.
 */
export async function deliverCallback(port: number, callback: URL, cookie?: string): Promise<Delivered> {
  const local = new URL(callback.pathname + callback.search, `http://127.0.0.1:${port}`);
  const res = await fetch(local, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

export interface ConsentVisit {
  /** The authorization server's URL the page continues to. */
  authorizationUrl: URL;
  /** The cookie the page set (name=value), which the callback wants back. */
  cookie: string;
  page: string;
}

/**
 * Opens the service's consent page (the auth_request's authorization_endpoint) as the user's
 * browser would, on 127.0.0.1:`port` whatever BASE_URL says, and reads where it continues to.
 */
export async function openConsentPage(port: number, endpoint: string): Promise<ConsentVisit> {
  const url = new URL(endpoint);
  const res = await fetch(new URL(url.pathname + url.search, `http://127.0.0.1:${port}`), { redirect: 'manual' });
  const page = await res.text();
  if (res.status !== 200) throw new Error(`the consent page answered ${res.status}: ${page.slice(0, 200)}`);
  const href = /<a id="continue" href="([^"]+)"/.exec(page)?.[1];
  if (!href) throw new Error('the consent page has no continue link');
  const cookie = (res.headers.getSetCookie()[0] ?? '').split(';')[0]!;
  return { authorizationUrl: new URL(href.replace(/&amp;/g, '&').replace(/&#39;/g, "'").replace(/&quot;/g, '"')), cookie, page };
}

/** The proxy address of a connector on 127.0.0.1, whatever BASE_URL says. */
export function localMcpUrl(port: number, connectorId: string): string {
  return `http://127.0.0.1:${port}/api/v1/connectors/${connectorId}/mcp`;
}

/** Calls a tool through the proxy with the MCP SDK client and returns its first text. */
export async function callTool(mcpUrl: string, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const client = new Client({ name: 'oauth-service-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  try {
    const result = await client.callTool({ name, arguments: args });
    return (result.content as { type: string; text?: string }[])[0]?.text ?? '';
  } finally {
    await client.close();
  }
}

/** The claims of the token the proxy presented upstream, as the test servers' whoami tool shows them. */
export async function whoami(mcpUrl: string): Promise<{ sub: string; scope: string | null; client_id: string | null }> {
  return JSON.parse(await callTool(mcpUrl, 'whoami'));
}

/** Creates a connector and asks it to connect; answers the connect response as is. */
export async function startFlow(api: ApiCall, create: Record<string, unknown>, connect: Record<string, unknown> = {}) {
  const created = await api('POST', '/api/v1/connectors', create);
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${created.text}`);
  const started = Date.now();
  const res = await api('POST', `/api/v1/connectors/${created.body.id}/connect`, connect);
  return { id: created.body.id as string, res, connectMs: Date.now() - started };
}

/** Polls the record until `accept` takes it. */
export function recordWhen(api: ApiCall, id: string, accept: (record: any) => boolean, timeoutMs: number, what: string): Promise<any> {
  return eventually(async () => {
    const record = (await api('GET', `/api/v1/connectors/${id}`)).body;
    return record && accept(record) ? record : undefined;
  }, timeoutMs, what);
}

/** The record's state and reason, for assertion messages. */
export async function describeRecord(api: ApiCall, id: string): Promise<string> {
  const r = (await api('GET', `/api/v1/connectors/${id}`)).body;
  return `${r?.state} (${r?.disconnect_reason ?? 'no reason'})`;
}
