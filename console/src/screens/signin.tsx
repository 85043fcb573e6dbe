import { useState } from 'preact/hooks';
import type { PairingReturn } from '../pairing.ts';
import { ErrorBox, Notice, useAction } from '../ui.tsx';

export function SignInScreen({
  pending,
  onSignedIn,
}: {
  pending?: PairingReturn;
  onSignedIn(clientId: string, secret: string): Promise<void>;
}) {
  const [clientId, setClientId] = useState('');
  const [secret, setSecret] = useState('');
  const action = useAction(() => onSignedIn(clientId.trim(), secret));
  return (
    <main class="narrow">
      <h1>Custody console</h1>
      <p>
        Sign in with an API client (<code>bin/custody admin create-client --account &lt;name&gt;</code> prints one). The
        tokens stay in this page's memory only.
      </p>
      {pending && <Notice>A connection came back for collection {pending.collectionId}: sign in to finish it.</Notice>}
      <form
        class="card"
        onSubmit={(e) => {
          e.preventDefault();
          void action.run();
        }}
      >
        <label>
          Client ID
          <input
            name="client_id"
            autoComplete="username"
            autoFocus
            required
            value={clientId}
            onInput={(e) => setClientId(e.currentTarget.value)}
          />
        </label>
        <label>
          Client secret
          <input
            name="client_secret"
            type="password"
            autoComplete="current-password"
            required
            value={secret}
            onInput={(e) => setSecret(e.currentTarget.value)}
          />
        </label>
        <button type="submit" disabled={action.busy}>
          {action.busy ? 'Signing in…' : 'Sign in'}
        </button>
        <ErrorBox error={action.error} />
      </form>
    </main>
  );
}
