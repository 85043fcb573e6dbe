import { useEffect, useState } from 'preact/hooks';
import { forgetSession, resumeSession, serverInfo, signIn, type CustodyClient, type ServerInfo } from './api.ts';
import { clearPairingFromUrl, handOverToOpener, pairingReturnInUrl, type PairingReturn } from './pairing.ts';
import { AuditScreen } from './screens/audit.tsx';
import { CollectionScreen } from './screens/collection.tsx';
import { CollectionsScreen } from './screens/collections.tsx';
import { HoldsScreen } from './screens/holds.tsx';
import { SearchScreen } from './screens/search.tsx';
import { SignInScreen } from './screens/signin.tsx';
import { WorkspacesScreen } from './screens/workspaces.tsx';
import { Notice } from './ui.tsx';

export interface Session {
  custody: CustodyClient;
  server: ServerInfo;
}

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return hash;
}

export function navigate(hash: string): void {
  location.hash = hash;
}

const NAV = [
  ['#/workspaces', 'Workspaces'],
  ['#/collections', 'Collections'],
  ['#/search', 'Search'],
  ['#/holds', 'Legal holds'],
  ['#/audit', 'Audit log'],
] as const;

export function App() {
  const [session, setSession] = useState<Session>();
  const [handedOver, setHandedOver] = useState(false);
  const [pending, setPending] = useState<PairingReturn | undefined>(() => pairingReturnInUrl());
  const hash = useHash();
  // A new screen: focus its main region (without scrolling), so keyboard and screen-reader users start there.
  useEffect(() => {
    if (session) document.getElementById('main')?.focus({ preventScroll: true });
  }, [hash.split('?')[0], Boolean(session)]);

  const [resuming, setResuming] = useState(true);
  useEffect(() => {
    if (pending && handOverToOpener(pending)) {
      setHandedOver(true);
      window.close();
      return;
    }
    // A reload: the session this tab kept, if the server still takes it.
    const custody = resumeSession();
    if (!custody) {
      setResuming(false);
      return;
    }
    serverInfo(custody).then(
      (server) => {
        setSession({ custody, server });
        setResuming(false);
        if (pending) navigate(`#/collections/${encodeURIComponent(pending.collectionId)}/setup`);
      },
      () => {
        forgetSession();
        setResuming(false);
      },
    );
  }, []);

  if (handedOver) {
    return (
      <main class="narrow">
        <h1>Custody</h1>
        <Notice>The connection result was sent to the console. You can close this window.</Notice>
      </main>
    );
  }
  if (!session && resuming) {
    return (
      <main class="narrow">
        <h1>Custody</h1>
        <p role="status">Resuming your session…</p>
      </main>
    );
  }
  if (!session) {
    return (
      <SignInScreen
        pending={pending}
        onSignedIn={async (clientId, clientSecret) => {
          const custody = await signIn(clientId, clientSecret);
          setSession({ custody, server: await serverInfo(custody) });
          if (pending) navigate(`#/collections/${encodeURIComponent(pending.collectionId)}/setup`);
        }}
      />
    );
  }

  const [, area = 'workspaces', id, tab] = (hash.split('?')[0] ?? '').split('/').map(decodeURIComponent);
  const current = `#/${area}`;
  return (
    <div class="layout">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Custody</span>
        <nav aria-label="Main">
          {NAV.map(([href, label]) => (
            <a href={href} aria-current={current === href ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <button
          type="button"
          class="secondary"
          onClick={() => {
            session.custody.session.signOut();
            forgetSession();
            setSession(undefined);
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {area === 'workspaces' && <WorkspacesScreen session={session} />}
        {area === 'collections' && !id && <CollectionsScreen session={session} />}
        {area === 'collections' && id && (
          <CollectionScreen
            key={id}
            session={session}
            id={id}
            tab={tab ?? 'setup'}
            pairing={pending?.collectionId === id ? pending : undefined}
            onPairingHandled={() => {
              setPending(undefined);
              clearPairingFromUrl();
            }}
          />
        )}
        {area === 'search' && <SearchScreen session={session} />}
        {area === 'holds' && <HoldsScreen session={session} />}
        {area === 'audit' && <AuditScreen session={session} />}
      </main>
    </div>
  );
}
