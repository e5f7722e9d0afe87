// Connect: with a token pasted into a password field (the token goes to the service in the request
// body and is never shown again), or through OAuth, whose answer is a link to the authorization page.
import { useState } from 'preact/hooks';
import { connectorPath, type Api } from '../api';
import type { Connector } from '../types';

const CONNECTABLE = new Set(['created', 'auth_required', 'disconnected', 'connected']);

interface Props {
  api: Api;
  connector: Connector;
  busy: boolean;
  act: (action: () => Promise<unknown>) => Promise<void>;
}

export function ConnectForm({ api, connector, busy, act }: Props) {
  const [token, setToken] = useState('');
  const disabled = busy || !CONNECTABLE.has(connector.state);
  const connect = (body: object) => act(() => api.post(connectorPath(connector.id, '/connect'), body));
  return (
    <div class="connect">
      <form class="inline-form" onSubmit={(e) => { e.preventDefault(); void connect({ access_token: token }).then(() => setToken('')); }}>
        <label for="access-token">Access token</label>
        <input id="access-token" type="password" autocomplete="off" required value={token} onInput={(e) => setToken((e.target as HTMLInputElement).value)} />
        <button type="submit" disabled={disabled}>Connect with token</button>
      </form>
      <button type="button" disabled={disabled} onClick={() => void connect({})}>
        {connector.state === 'connected' ? 'Re-authorize (OAuth)' : 'Connect (OAuth or no credential)'}
      </button>
      {busy && <span role="status"> Working…</span>}
    </div>
  );
}
