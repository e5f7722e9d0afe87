// How to use an MCP path from elsewhere: its address to copy, and configurations ready to paste:
// an MCP client's JSON (the `mcpServers` shape Claude Desktop, Cursor and VS Code read) with the
// Authorization header the service wants, and a curl line. The credential is a placeholder: the
// console never prints one.
import { useCaller } from '../caller-context';
import { Copyable } from './common';

export function ClientConfig({ mcpUrl, name }: { mcpUrl: string; name: string }) {
  const caller = useCaller();
  const header = caller.authenticated ? 'Bearer <your API key>' : null;
  const key = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'connector';
  const json = JSON.stringify({ mcpServers: { [key]: { type: 'http', url: mcpUrl, ...(header ? { headers: { Authorization: header } } : {}) } } }, null, 2);
  const curl = [
    `curl -sS ${mcpUrl} \\`,
    ...(header ? [`  -H "authorization: ${header}" \\`] : []),
    `  -H content-type:application/json -H 'accept: application/json, text/event-stream' \\`,
    `  -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'`,
  ].join('\n');
  return (
    <section aria-labelledby="use-heading">
      <h2 id="use-heading">Use it from an MCP client</h2>
      <p>Its MCP address:</p>
      <Copyable label="MCP address" value={mcpUrl} />
      {header && <p class="hint">MCP clients send your API key as <code>Authorization: Bearer</code>; a client that signs in by itself (OAuth) needs no header.</p>}
      <details open>
        <summary>MCP client configuration (JSON)</summary>
        <Copyable label="MCP client configuration" value={json} multiline />
      </details>
      <details>
        <summary>curl</summary>
        <Copyable label="curl command" value={curl} multiline />
      </details>
    </section>
  );
}
