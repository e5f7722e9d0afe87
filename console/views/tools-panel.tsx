// The tools an MCP path serves (a connector's, or a toolset's), read through that path with the
// user's own credential and kept for the tab's life (Refresh reads them again), and a form to
// call one and read its answer.
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api';
import { McpError, openMcp, type CallResult, type McpTool } from '../mcp-client';
import { useAction } from '../use-action';
import { ErrorNote } from './common';

const cache = new Map<string, McpTool[]>();

/** A JSON-RPC error that carries the service's problem details reads like any API error. */
function asError(err: unknown): unknown {
  if (err instanceof McpError && err.data?.type) return new ApiError({ type: err.data.type, status: err.data.status ?? 0, title: '', detail: err.data.detail });
  return err;
}

async function withSession<T>(url: string, authorization: string | null, work: (s: Awaited<ReturnType<typeof openMcp>>) => Promise<T>): Promise<T> {
  const session = await openMcp(url, authorization);
  try {
    return await work(session);
  } finally {
    await session.close();
  }
}

/** `version`: what the tools depend on besides the address (a toolset's members): another version reads them again. */
export function ToolsPanel({ mcpUrl, authorization, ready, version = '' }: { mcpUrl: string; authorization: string | null; ready: boolean; version?: string }) {
  const key = `${mcpUrl}#${version}`;
  const [tools, setTools] = useState<McpTool[] | undefined>(cache.get(key));
  const load = useAction();
  const refresh = () => load.run(async () => {
    try {
      const listed = await withSession(mcpUrl, authorization, (s) => s.request<{ tools: McpTool[] }>('tools/list'));
      cache.set(key, listed.tools);
      setTools(listed.tools);
    } catch (err) {
      throw asError(err);
    }
  });
  useEffect(() => { if (ready && !cache.has(key)) void refresh(); }, [key, ready]);
  return (
    <section aria-labelledby="tools-heading">
      <h2 id="tools-heading">Tools</h2>
      {!ready ? <p class="empty">Its tools are listed once it is connected.</p> : (
        <>
          <button type="button" class="secondary" disabled={load.busy} onClick={() => void refresh()}>{load.busy ? 'Reading the tools…' : 'Refresh the tools'}</button>
          <ErrorNote error={load.error} />
          {tools && (tools.length === 0 ? <p class="empty">It offers no tools.</p> : (
            <>
              <ul class="tools">{tools.map((tool) => <li key={tool.name}><code>{tool.name}</code>{tool.description ? ` — ${tool.description}` : ''}</li>)}</ul>
              <ToolCall tools={tools} mcpUrl={mcpUrl} authorization={authorization} />
            </>
          ))}
        </>
      )}
    </section>
  );
}

function ToolCall({ tools, mcpUrl, authorization }: { tools: McpTool[]; mcpUrl: string; authorization: string | null }) {
  const [name, setName] = useState(tools[0]!.name);
  const [values, setValues] = useState<Record<string, string>>({});
  const [answer, setAnswer] = useState<CallResult | null>(null);
  const call = useAction();
  const tool = tools.find((t) => t.name === name) ?? tools[0]!;
  const properties = Object.entries(tool.inputSchema?.properties ?? {});
  const submit = (e: Event) => {
    e.preventDefault();
    setAnswer(null);
    void call.run(async () => {
      const args = Object.fromEntries(properties.filter(([key]) => values[key] !== undefined && values[key] !== '').map(([key, schema]) => [key, typed(values[key]!, schema.type)]));
      try {
        setAnswer(await withSession(mcpUrl, authorization, (s) => s.request<CallResult>('tools/call', { name: tool.name, arguments: args })));
      } catch (err) {
        throw asError(err);
      }
    });
  };
  return (
    <form class="card tool-call" onSubmit={submit}>
      <h3>Try a tool</h3>
      <label for="tool-name">Tool</label>
      <select id="tool-name" value={name} onChange={(e) => { setName((e.target as HTMLSelectElement).value); setValues({}); setAnswer(null); }}>
        {tools.map((t) => <option key={t.name} value={t.name}>{t.title ?? t.name}</option>)}
      </select>
      {properties.map(([key, schema]) => (
        <div key={`${tool.name}/${key}`}>
          <label for={`arg-${key}`}>{key}{tool.inputSchema?.required?.includes(key) ? '' : <span class="hint"> (optional)</span>}</label>
          <input id={`arg-${key}`} required={tool.inputSchema?.required?.includes(key)} inputMode={schema.type === 'number' || schema.type === 'integer' ? 'decimal' : 'text'}
            placeholder={schema.description ?? ''} value={values[key] ?? ''} onInput={(e) => setValues({ ...values, [key]: (e.target as HTMLInputElement).value })} />
        </div>
      ))}
      <button type="submit" disabled={call.busy}>{call.busy ? 'Calling…' : 'Call the tool'}</button>
      <ErrorNote error={call.error} />
      {answer && (
        <div class={answer.isError ? 'error' : 'answer'} role="status" aria-label="The tool's answer">
          {answer.isError && <p>The tool reported an error:</p>}
          {(answer.content ?? []).map((part, i) => <pre key={i}>{part.type === 'text' ? part.text : `(${part.type})`}</pre>)}
        </div>
      )}
    </form>
  );
}

/** A field's text as the JSON type its schema asks for (text otherwise). */
function typed(value: string, type: string | undefined): unknown {
  if (type === 'number' || type === 'integer') return Number(value);
  if (type === 'boolean') return value === 'true';
  if (type === 'object' || type === 'array') {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}
