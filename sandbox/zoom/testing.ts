import { createHash, randomBytes } from 'node:crypto';
import type { ZoomSandbox } from './index.ts';

// Helpers for tests that need a Zoom grant from the sandbox without going through the service.

export interface SandboxTokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  scope: string;
  token_type: string;
  api_url: string;
}

export function basicAuth(sb: Pick<ZoomSandbox, 'clientId' | 'clientSecret'>): string {
  return `Basic ${Buffer.from(`${sb.clientId}:${sb.clientSecret}`).toString('base64')}`;
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Calls /oauth/authorize and returns the URL the browser would be sent to. */
export async function authorizeRedirect(sb: ZoomSandbox, params: Record<string, string>): Promise<URL> {
  const url = new URL('/oauth/authorize', sb.oauthUrl);
  for (const [k, v] of Object.entries({ response_type: 'code', client_id: sb.clientId, ...params }))
    url.searchParams.set(k, v);
  const res = await fetch(url, { redirect: 'manual' });
  const location = res.headers.get('location');
  if (res.status !== 302 || !location) throw new Error(`authorize answered ${res.status}`);
  return new URL(location);
}

export async function tokenRequest(
  sb: ZoomSandbox,
  form: Record<string, string>,
  auth = basicAuth(sb),
): Promise<Response> {
  return fetch(`${sb.oauthUrl}/oauth/token`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
}

/** Full user-OAuth pairing with PKCE: authorize (auto-consent) then exchange the code. */
export async function pairWithSandbox(
  sb: ZoomSandbox,
  redirectUri = 'http://127.0.0.1:9/callback',
): Promise<SandboxTokens> {
  const { verifier, challenge } = pkcePair();
  const back = await authorizeRedirect(sb, {
    redirect_uri: redirectUri,
    state: 's',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const code = back.searchParams.get('code');
  if (!code) throw new Error('authorize gave no code');
  const res = await tokenRequest(sb, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  });
  if (res.status !== 200) throw new Error(`token exchange answered ${res.status}`);
  return (await res.json()) as SandboxTokens;
}

/** GET on the sandbox API with a bearer token; path relative to apiUrl (e.g. `/users?page_size=2`). */
export async function apiGet(sb: ZoomSandbox, token: string, path: string): Promise<Response> {
  return fetch(`${sb.apiUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
}

/** A response body as loosely typed JSON, for assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test helper: callers read the wire's JSON as they please
export async function json(res: Response): Promise<any> {
  return res.json();
}

/**
 * Makes a sandbox `hostname` (and every name under it) resolve to 127.0.0.1 for undici in this process, so the
 * server's connectors can reach `http://<hostname>:…` and `http://us02web.<hostname>:…`. Returns the undo.
 */
export async function resolveSandboxHosts(hostname: string): Promise<() => void> {
  const { Agent, getGlobalDispatcher, setGlobalDispatcher } = await import('undici');
  const previous = getGlobalDispatcher();
  const lookup = (name: string, options: unknown, callback: (...args: unknown[]) => void) => {
    const cb = typeof options === 'function' ? (options as typeof callback) : callback;
    const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all;
    if (name === hostname || name.endsWith(`.${hostname}`)) {
      return all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4);
    }
    return import('node:dns').then((dns) => dns.lookup(name, options ?? {}, cb as never));
  };
  setGlobalDispatcher(new Agent({ connect: { lookup: lookup as never } }));
  return () => setGlobalDispatcher(previous);
}
