/**
 * The consent round trip. The provider sends the browser back to `<PUBLIC_URL>/console/?code=…&state=<collection
 * id>`. That page is the consent window the console opened: it hands the code to the console that opened it (same
 * origin only) and closes, so the console keeps its in-memory tokens. Without an opener (the consent ran in this
 * tab), the code waits until the user has signed in.
 */
export interface PairingReturn {
  collectionId: string;
  code?: string;
  error?: string;
  errorDescription?: string;
}

const MESSAGE = 'custody-pairing';

export function pairingReturnInUrl(): PairingReturn | undefined {
  const q = new URLSearchParams(location.search);
  const state = q.get('state');
  if (!state || (!q.get('code') && !q.get('error'))) return undefined;
  return {
    collectionId: state,
    code: q.get('code') ?? undefined,
    error: q.get('error') ?? undefined,
    errorDescription: q.get('error_description') ?? undefined,
  };
}

/** In the consent window: pass the result to the console that opened it. True when handed over. */
export function handOverToOpener(result: PairingReturn): boolean {
  const opener = window.opener as Window | null;
  if (!opener) return false;
  try {
    if (opener.location.origin !== location.origin) return false;
  } catch {
    return false; // another origin: reading its location throws
  }
  opener.postMessage({ type: MESSAGE, ...result }, location.origin);
  return true;
}

export function clearPairingFromUrl(): void {
  history.replaceState(null, '', `${location.pathname}${location.hash}`);
}

/** In the console: the next pairing result a consent window sends. */
export function onPairingMessage(handler: (result: PairingReturn) => void): () => void {
  const listener = (event: MessageEvent) => {
    if (event.origin !== location.origin || (event.data as { type?: unknown } | null | undefined)?.type !== MESSAGE)
      return;
    const { collectionId, code, error, errorDescription } = event.data as PairingReturn;
    handler({ collectionId, code, error, errorDescription });
  };
  window.addEventListener('message', listener);
  return () => window.removeEventListener('message', listener);
}
