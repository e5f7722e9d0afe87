// Reading the service's own error answers on the MCP paths: a JSON-RPC error object whose data
// holds the RFC 9457 problem (to a JSON-RPC request), or the problem itself (to anything else).
import { PROBLEM_CONTENT_TYPE } from '../../contract/problem';

export interface McpError {
  status: number;
  contentType: string | null;
  /** The JSON-RPC error, when the answer was one (null: problem details). */
  rpc: { id: string | number | null; code: number; message: string } | null;
  /** The problem: the body itself, or the JSON-RPC error's data. */
  problem: Record<string, any>;
}

export async function mcpErrorOf(response: Response): Promise<McpError> {
  return mcpErrorIn(response.status, response.headers.get('content-type'), await response.text());
}

/** The same from raw text (tests that read answers off sockets). */
export function mcpErrorIn(status: number, contentType: string | null, text: string): McpError {
  return mcpErrorSync(status, contentType, JSON.parse(text) as Record<string, any>);
}

function mcpErrorSync(status: number, contentType: string | null, body: Record<string, any>): McpError {
  if (contentType?.startsWith(PROBLEM_CONTENT_TYPE)) return { status, contentType, rpc: null, problem: body as McpError['problem'] };
  const error = body.error as { code: number; message: string; data: McpError['problem'] } | undefined;
  if (body.jsonrpc !== '2.0' || !error) throw new Error(`neither problem details nor a JSON-RPC error: ${JSON.stringify(body)}`);
  return { status, contentType, rpc: { id: body.id, code: error.code, message: error.message }, problem: error.data };
}
