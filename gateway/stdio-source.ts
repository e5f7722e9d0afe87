// The stdio side of the gateway: one MCP server reached through its stdin and stdout, whatever
// carries them (a child process, or an attach stream to a sibling container). Shaped like the
// SDK's Transport so that the session layer above never knows which one it talks to.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** How the stdio side ended. `reason` is a sentence safe to show and to store. */
export interface StdioExit {
  code: number | null;
  signal: string | null;
  reason: string;
}

export interface StdioSource {
  /** Names the source in logs; never contains env values or tokens. */
  readonly description: string;
  /** Resolves once messages can be sent; rejects (after onexit) when the source cannot start. */
  start(): Promise<void>;
  send(message: JSONRPCMessage): Promise<void>;
  /** Ends the stdio side; resolves after onexit has fired. */
  close(): Promise<void>;
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  /** Fires exactly once, when the far side is gone for good. */
  onexit?: (exit: StdioExit) => void;
}

export function exitReason(code: number | null, signal: string | null): string {
  if (code !== null) return `stdio server exited with code ${code}`;
  if (signal !== null) return `stdio server was killed by signal ${signal}`;
  return 'stdio server exited';
}
