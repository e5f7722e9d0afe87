// The first screen a newcomer meets: what the service is, where its API is described, whether it
// is healthy, and the two ways to sign in (an API key, or the platform's identity provider).
import { useState } from 'preact/hooks';
import type { ConsoleSettings } from '../types';
import { useAction } from '../use-action';
import { ErrorNote } from './common';

interface Props {
  settings: ConsoleSettings | undefined;
  message: string | null;
  onKey: (key: string) => Promise<void>;
  onIdentityProvider: () => Promise<void>;
}

export function SignedOut({ settings, message, onKey, onIdentityProvider }: Props) {
  const [key, setKey] = useState('');
  const { busy, error, run } = useAction();
  return (
    <main id="main" class="signed-out">
      <h1>Connector registry</h1>
      <p class="lead">
        This service keeps MCP servers as <strong>connectors</strong>: it connects them (running the OAuth flow itself, or
        holding a token you give it), runs stdio servers as managed workloads, and proxies MCP traffic to them, so that
        agents reach every server at one address each and never hold a token.
      </p>
      <ul class="links">
        <li><a href="/reference">API reference</a> (<a href="/api/v1/openapi.json">OpenAPI document</a>)</li>
        <li>Health: <a href="/healthz">liveness</a>, <a href="/readyz">readiness</a></li>
      </ul>
      {message && <p class="notice" role="status">{message}</p>}
      <section aria-labelledby="sign-in-heading">
        <h2 id="sign-in-heading">Sign in</h2>
        <form class="card" onSubmit={(e) => { e.preventDefault(); void run(() => onKey(key.trim())); }}>
          <label for="api-key">API key</label>
          <input id="api-key" name="api-key" type="password" autocomplete="off" required value={key}
            onInput={(e) => setKey((e.target as HTMLInputElement).value)} />
          <p class="hint">Kept in this tab only (session storage) until you sign out or close the tab.</p>
          <button type="submit" disabled={busy}>Sign in with the key</button>
        </form>
        {settings?.client_id && (
          <div class="card">
            <p>Or sign in with your account at <code>{new URL(settings.issuer!).host}</code>.</p>
            <button type="button" disabled={busy} onClick={() => void run(onIdentityProvider)}>Sign in with the identity provider</button>
          </div>
        )}
        <ErrorNote error={error} />
      </section>
    </main>
  );
}
