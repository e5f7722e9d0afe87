// Connect: with a token pasted into a password field (the token goes to the service in the request
// body and is never shown again), or with no credential, which is OAuth when the server offers it
// (the answer is a link to the authorization page). "Re-authorize" is offered only to a connector
// that was authorized through OAuth; a server that wants a token says so (token-required), and the
// token field takes the focus. The headers and URL variables the connector's preset asks for go
// with either button (upstream-inputs.tsx). A preset that connects with enterprise-managed
// authorization (SEP-990) takes the user's own sign-in: its ID token is the identity assertion.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, connectorPath, type Api } from '../api';
import type { Connector } from '../types';
import { UpstreamFields, useUpstreamInputs } from './upstream-inputs';
import { signInIdToken } from '../session';

const CONNECTABLE = new Set(['created', 'auth_required', 'disconnected', 'connected']);

interface Props {
  api: Api;
  connector: Connector;
  /** It went through `auth_required` before: an OAuth connector. */
  oauth: boolean;
  busy: boolean;
  error: unknown;
  act: (action: () => Promise<Connector | undefined>) => Promise<void>;
}

export function ConnectForm({ api, connector, oauth, busy, error, act }: Props) {
  const [token, setToken] = useState('');
  const field = useRef<HTMLInputElement>(null);
  const wantsToken = error instanceof ApiError && error.problem.type?.endsWith('/token-required');
  useEffect(() => { if (wantsToken) field.current?.focus(); }, [wantsToken]);
  const disabled = busy || !CONNECTABLE.has(connector.state);
  const stdio = connector.url.startsWith('mcp+stdio:');
  const inputs = useUpstreamInputs(api, connector);
  const connect = (body: object) => act(() => api.post<Connector>(connectorPath(connector.id, '/connect'), { ...body, ...inputs.body() }));
  const connected = connector.state === 'connected';
  return (
    <div class="connect">
      <UpstreamFields inputs={inputs} />
      {inputs.assertion && <SignInConnect disabled={disabled} connect={connect} />}
      <form class="inline-form" onSubmit={(e) => { e.preventDefault(); void connect({ access_token: token }).then(() => setToken('')); }}>
        <label for="access-token">Access token{connected ? ' (replaces the one it has)' : ''}</label>
        <input id="access-token" ref={field} type="password" autocomplete="off" required value={token} onInput={(e) => setToken((e.target as HTMLInputElement).value)} />
        <button type="submit" disabled={disabled}>{connected ? 'Replace the token' : 'Connect with token'}</button>
      </form>
      {!connected && <button type="button" disabled={disabled} onClick={() => void connect({})}>{stdio ? 'Start it' : 'Connect without a token (OAuth)'}</button>}
      {connected && oauth && connector.auth_kind !== 'enterprise_managed' && <button type="button" disabled={disabled} onClick={() => void connect({})}>Re-authorize</button>}
      {busy && <span role="status"> Working…</span>}
    </div>
  );
}

/** Connect as the signed-in user: the sign-in's ID token, which the service checks names that user. */
function SignInConnect({ disabled, connect }: { disabled: boolean; connect: (body: object) => Promise<void> }) {
  const idToken = signInIdToken();
  if (!idToken) {
    return <p class="notice" id="sign-in-needed">This connector acts as you with your sign-in at the identity provider: sign out and sign in there again to connect it.</p>;
  }
  return <button type="button" id="connect-with-sign-in" disabled={disabled} onClick={() => void connect({ id_token: idToken })}>Connect with my sign-in</button>;
}
