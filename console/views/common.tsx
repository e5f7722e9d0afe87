// Small pieces every view uses: a state badge, an error note that reads a problem's words and
// field errors, times in the user's locale, how a connector authenticates in words, and a heading that takes the focus when a view opens
// (so that a keyboard or screen-reader user hears where they are).
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { ApiError } from '../api';
import { useCaller } from '../caller-context';
import { wordsFor } from '../problem-words';
import type { Connector } from '../types';

export function StateBadge({ state }: { state: string }) {
  return <span class={`state state-${state.replace(/[^a-z_]/g, '')}`}>{state}</span>;
}

/** An error in words (problem-words.ts): a sentence, the next step, fields; a details line for admins. */
export function ErrorNote({ error }: { error: unknown }) {
  const caller = useCaller();
  if (!error) return null;
  const words = error instanceof ApiError ? wordsFor(error.problem, caller.admin && caller.authenticated) : { sentence: error instanceof Error ? error.message : String(error) };
  return (
    <div class="error" role="alert">
      <p>{words.sentence}{'next' in words && words.next ? <> {words.next}</> : null}</p>
      {'fields' in words && words.fields && <ul>{words.fields.map((f) => <li key={f.label}><strong>{f.label}</strong>: {f.message}</li>)}</ul>}
      {'details' in words && words.details && <p class="details">Details: <code>{words.details}</code></p>}
    </div>
  );
}

export function ViewHeading({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return <h1 tabIndex={-1} ref={ref}>{children}</h1>;
}

export const shownTime = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

export const connectorName = (c: { metadata: Record<string, string>; url: string }) => c.metadata.name || c.url;

/** A value to copy (an address, a configuration), with a button that copies it and says so. */
export function Copyable({ label, value, multiline = false }: { label: string; value: string; multiline?: boolean }) {
  const [copied, setCopied] = useState(false);
  const copy = () => void navigator.clipboard.writeText(value).then(() => {
    setCopied(true);
    setTimeout(() => setCopied(false), 2000);
  });
  return (
    <div class="copyable">
      {multiline ? <pre aria-label={label}><code>{value}</code></pre> : <code aria-label={label}>{value}</code>}
      <button type="button" class="secondary copy" aria-label={`Copy ${label}`} onClick={copy}>{copied ? 'Copied' : 'Copy'}</button>
    </div>
  );
}

/** How a connector authenticates to its MCP server, in words (the record's and the audit's auth_kind). */
const AUTH_KIND_WORDS: Record<NonNullable<Connector['auth_kind']>, string> = {
  none: 'none (the server asks for no authorization)',
  bearer: 'a given token',
  authorization_code: 'OAuth, authorized by a user',
  client_credentials: 'OAuth client credentials',
  enterprise_managed: 'enterprise-managed (identity assertion)',
  workload_identity: "the service's workload identity",
};

export const authKindWords = (kind: Connector['auth_kind']) => (kind ? AUTH_KIND_WORDS[kind] : '—');

/** How the token travels: a bearer token anyone holding it could present, or one bound to the connector's own DPoP key. */
export const tokenBindingWords = (binding: Connector['token_binding']) =>
  (binding === 'dpop' ? "DPoP: bound to the connector's own key, presented with a proof on every request (RFC 9449)" : 'Bearer: presented as it is');
