// One JSON-RPC request at 2026-07-28 to an MCP path, as the tests of the Tasks extension send
// them: the routing headers set, and the extension declared in the request's _meta when asked.
export const DECLARED = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } };

/**
 * How long a `slow_compute` call lasts when a test needs it to become a task: far past the sync
 * windows the tests set (300 and 600 ms). A call that ends within its window is answered plainly,
 * and on a loaded machine a 1 s call once was (the console's task-list test, which waits longer still).
 */
export const TASK_SECONDS = 2;

export interface RpcAnswer {
  status: number;
  body: { result?: Record<string, any>; error?: { code: number; message: string; data?: unknown } };
}

/** What a toolset's path asks of every 2026-07-28 request besides (SEP-2575): the revision in _meta, and capabilities, if none. */
const TOOLSET_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

/**
 * `name`: the Mcp-Name header (the tool, or the task id); `declared`: the extension in _meta
 * (default true); `toolset`: the request carries the _meta a toolset's path requires.
 */
export async function mcpRpc(url: string, method: string, params: Record<string, unknown>, name?: string, options: { headers?: Record<string, string>; declared?: boolean; toolset?: boolean } = {}): Promise<RpcAnswer> {
  const meta = { ...(options.toolset ? TOOLSET_META : {}), ...(options.declared === false ? {} : DECLARED) };
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28',
      'mcp-method': method, ...(name === undefined ? {} : { 'mcp-name': name }), ...options.headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: Object.keys(meta).length === 0 ? params : { ...params, _meta: meta } }),
  });
  return { status: response.status, body: (await response.json()) as RpcAnswer['body'] };
}
