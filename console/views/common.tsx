// Small pieces every view uses: a state badge, an error note that reads a problem's words and
// field errors, times in the user's locale, and a heading that takes the focus when a view opens
// (so that a keyboard or screen-reader user hears where they are).
import { useEffect, useRef } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { ApiError } from '../api';

export function StateBadge({ state }: { state: string }) {
  return <span class={`state state-${state.replace(/[^a-z_]/g, '')}`}>{state}</span>;
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const fields = error instanceof ApiError ? error.problem.errors ?? [] : [];
  return (
    <div class="error" role="alert">
      <p>{error instanceof ApiError ? `${error.status}: ${message}` : message}</p>
      {fields.length > 0 && <ul>{fields.map((f) => <li key={f.path}><code>{f.path}</code>: {f.message}</li>)}</ul>}
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
