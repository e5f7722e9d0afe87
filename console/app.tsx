// The console's shell: finds out who the user is (a stored credential, the identity provider's
// redirect back, or a service running without caller authentication), then shows the signed-out
// page or the view the URL's fragment names.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, createApi, type Credential } from './api';
import { completeSignIn, isSignInReturn, startSignIn } from './oidc';
import { hrefOf, useRoute } from './route';
import { forgetCredential, keepCredential, keepIdToken, storedCredential } from './session';
import type { CallerView, ConsoleSettings } from './types';
import { CallAudit } from './views/call-audit';
import { TaskApproval } from './views/task-approval';
import { ConnectorDetail } from './views/connector-detail';
import { ConnectorList } from './views/connector-list';
import { CreateConnector } from './views/create-connector';
import { RegistryApprovals } from './views/registry-approvals';
import { SignedOut } from './views/signed-out';
import { ToolsetList } from './views/toolset-list';
import { NewToolset, ToolsetDetail } from './views/toolset-detail';
import { CallerContext } from './caller-context';

type Session =
  | { phase: 'loading' }
  | { phase: 'signed-out'; message: string | null }
  | { phase: 'signed-in'; credential: Credential; caller: CallerView };

export function App() {
  const [settings, setSettings] = useState<ConsoleSettings | undefined>(undefined);
  const [session, setSession] = useState<Session>({ phase: 'loading' });
  const signOut = (message: string | null = null) => {
    forgetCredential();
    setSession({ phase: 'signed-out', message });
  };

  /** Asks the API who this credential is; a refused one is never kept. */
  const enter = async (credential: Credential, expiresIn?: number) => {
    const caller = await createApi(credential, () => undefined).get<CallerView>('/api/v1/caller');
    if (credential) keepCredential(credential, expiresIn);
    setSession({ phase: 'signed-in', credential, caller });
  };

  useEffect(() => {
    void (async () => {
      const loaded = await fetch('/console/config.json', { credentials: 'omit' }).then((r) => r.json() as Promise<ConsoleSettings>).catch(() => undefined);
      setSettings(loaded);
      const search = new URLSearchParams(location.search);
      try {
        if (loaded && isSignInReturn(search)) {
          history.replaceState(null, '', `/${location.hash}`);
          const signedIn = await completeSignIn(loaded, search);
          if (signedIn.idToken) keepIdToken(signedIn.idToken);
          return await enter({ kind: 'oidc', value: signedIn.accessToken }, signedIn.expiresIn);
        }
        const stored = storedCredential();
        if (stored) return await enter(stored);
        // With callers authenticated, a visitor without a credential signs in first (no request
        // that is sure to be refused); otherwise the service answers without one.
        if (loaded?.callers_authenticated) return setSession({ phase: 'signed-out', message: null });
        return await enter(null);
      } catch (err) {
        const refused = err instanceof ApiError && err.status === 401;
        signOut(refused ? null : (err as Error).message);
      }
    })();
  }, []);

  if (session.phase === 'loading') return <main id="main"><p role="status">Loading…</p></main>;
  if (session.phase === 'signed-out') {
    return (
      <SignedOut
        settings={settings}
        message={session.message}
        onKey={async (key) => {
          try {
            await enter({ kind: 'key', value: key });
          } catch (err) {
            throw err instanceof ApiError && err.status === 401 ? new Error('This key is not valid.') : err;
          }
        }}
        onIdentityProvider={() => startSignIn(settings!)}
      />
    );
  }
  return <SignedIn credential={session.credential} caller={session.caller} signOut={signOut} />;
}

function SignedIn({ credential, caller, signOut }: { credential: Credential; caller: CallerView; signOut: (message?: string | null) => void }) {
  const api = useMemo(() => createApi(credential, () => signOut('Your sign-in was refused or has expired; sign in again.')), [credential]);
  const route = useRoute();
  const who = caller.authenticated ? `${caller.name ?? caller.subject}${caller.admin ? ' (admin)' : ''}` : 'open access (caller authentication is off)';
  // Every view is new at each address: nothing (an error, a half-filled form) outlives a navigation.
  const place = hrefOf(route);
  return (
    <CallerContext.Provider value={caller}>
      <header class="top">
        <a class="brand" href={hrefOf({ view: 'list' })}>Connector registry</a>
        <nav aria-label="Main">
          <a href={hrefOf({ view: 'list' })}>Connectors</a>
          <a href={hrefOf({ view: 'new' })}>New</a>
          <a href={hrefOf({ view: 'toolsets' })}>Toolsets</a>
          {caller.admin && <a href={hrefOf({ view: 'approvals' })}>Approvals</a>}
          <a href="/reference">API reference</a>
        </nav>
        <span class="who" id="signed-in-as">Signed in as {who}</span>
        {caller.authenticated && <button type="button" class="secondary" onClick={() => signOut()}>Sign out</button>}
      </header>
      <div key={place}>
        {/* A non-admin who types #/approvals gets the list: the API would refuse every approval anyway. */}
        {(route.view === 'list' || (route.view === 'approvals' && !caller.admin)) && <ConnectorList api={api} caller={caller} />}
        {route.view === 'approvals' && caller.admin && <RegistryApprovals api={api} />}
        {route.view === 'new' && <CreateConnector api={api} />}
        {route.view === 'connector' && <ConnectorDetail api={api} id={route.id} />}
        {route.view === 'calls' && <CallAudit api={api} id={route.id} />}
        {route.view === 'task-approval' && <TaskApproval api={api} id={route.id} taskId={route.taskId} />}
        {route.view === 'toolsets' && <ToolsetList api={api} />}
        {route.view === 'new-toolset' && <NewToolset api={api} />}
        {route.view === 'toolset' && <ToolsetDetail api={api} id={route.id} />}
      </div>
    </CallerContext.Provider>
  );
}
