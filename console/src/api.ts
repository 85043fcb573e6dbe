import {
  createCustodyClient,
  CustodyApiError,
  type CustodyClient,
  type paths,
  type Schemas,
  type StoredAccessToken,
} from '../../client/src/index.ts';

export type { CustodyClient, Schemas };

type UsersAnswer = paths['/v1/collections/{id}/users']['get']['responses'][200]['content']['application/json'];
/** The user list of a `conf` collection, and of an `edrive` one. */
export type ConfUsersPage = Extract<UsersAnswer, { results: unknown }>;
export type DriveUsersPage = Extract<UsersAnswer, { entries: unknown }>;
export { collect, CustodyApiError } from '../../client/src/index.ts';

/**
 * The session of this tab, kept in sessionStorage so that a reload does not sign the user out: the client
 * credentials the user typed (the token endpoint needs them for every grant) and the current access token, never
 * a refresh token. Refresh tokens stay in this tab's memory: each tab (and each reload) starts its own token family
 * (a client-credentials sign-in once the kept access token nears expiry), so two tabs never present the same
 * refresh token and reuse detection never revokes a family under the user. sessionStorage is per tab and gone with
 * it; "Sign out" clears it. A tab the browser copies (duplicate, a window this one opens) copies only an access
 * token, which any number of holders may use.
 */
const KEPT = 'custody.console.session';
interface Kept {
  clientId: string;
  clientSecret: string;
  token?: StoredAccessToken;
}

function keep(kept: Kept): void {
  try {
    sessionStorage.setItem(KEPT, JSON.stringify(kept));
  } catch {
    // storage refused (private mode, quota): the session stays in memory only
  }
}

export function forgetSession(): void {
  sessionStorage.removeItem(KEPT);
}

function clientFor(clientId: string, clientSecret: string, token?: StoredAccessToken): CustodyClient {
  return createCustodyClient({
    baseUrl: location.origin,
    clientId,
    clientSecret,
    token,
    onTokens: (pair, expiresAt) =>
      keep({ clientId, clientSecret, token: { access_token: pair.access_token, expires_at: expiresAt } }),
  });
}

/** Signs in with client credentials; the tab keeps the session (see KEPT) until it closes or signs out. */
export async function signIn(clientId: string, clientSecret: string): Promise<CustodyClient> {
  const custody = clientFor(clientId, clientSecret);
  await custody.signIn();
  return custody;
}

/** The session this tab kept before a reload, if any. */
export function resumeSession(): CustodyClient | undefined {
  let kept: Kept | undefined;
  try {
    kept = JSON.parse(sessionStorage.getItem(KEPT) ?? 'null') as Kept | undefined;
  } catch {
    kept = undefined;
  }
  if (!kept?.clientId || !kept.clientSecret) return undefined;
  return clientFor(kept.clientId, kept.clientSecret, kept.token);
}

/** What the server says about itself: its public URL (for the pairing redirect) and which operations it has. */
export interface ServerInfo {
  publicUrl: string;
  has(method: string, path: string): boolean;
}

export async function serverInfo(custody: CustodyClient): Promise<ServerInfo> {
  const res = await custody.fetch('/v1/openapi.json');
  const doc = (await res.json()) as {
    servers?: Array<{ url: string }>;
    paths: Record<string, Record<string, unknown>>;
  };
  return {
    publicUrl: doc.servers?.[0]?.url ?? location.origin,
    has: (method, path) => Boolean(doc.paths[path]?.[method.toLowerCase()]),
  };
}

/** The sentence to show for a failure: the API's `detail`, with its code and correlation id for support. */
export function describeError(err: unknown): { detail: string; meta?: string } {
  if (err instanceof CustodyApiError) {
    const meta = [err.status, err.code, err.correlationId && `correlation id ${err.correlationId}`]
      .filter(Boolean)
      .join(' · ');
    return { detail: err.detail, meta };
  }
  return { detail: err instanceof Error ? err.message : String(err) };
}

/** Saves a response body as a file the browser downloads. */
export async function download(res: Response, fallbackName: string): Promise<void> {
  if (!res.ok)
    throw new CustodyApiError(
      res.status,
      await res.json().catch(() => undefined),
      res.headers.get('x-correlation-id') ?? undefined,
    );
  const disposition = res.headers.get('content-disposition') ?? '';
  const name = /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1] ?? /filename="?([^";]+)"?/i.exec(disposition)?.[1];
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name ? decodeURIComponent(name) : fallbackName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The reconciliation's outcomes, in its order: a run's or a custodian's `listed` is their sum. */
export const OUTCOMES = [
  ['collected', 'Collected'],
  ['unchanged', 'Unchanged'],
  ['excluded', 'Excluded'],
  ['not_present', 'Not present'],
  ['failed', 'Failed'],
] as const;

export type Outcome = (typeof OUTCOMES)[number][0];

/** How many listed pieces have an outcome (absent counts are 0: events of an older server carry fewer). */
export function settledOf(counts: Partial<Record<Outcome, number>>): number {
  return OUTCOMES.reduce((n, [k]) => n + (counts[k] ?? 0), 0);
}

export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function formatDate(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : '—';
}

/**
 * Who a row is about: the custodian's name where the API gives it (`custodian_name`), else the id. Typed loosely
 * so that it reads items, progress events, reconciliation entries and search hits with or without the name.
 */
export function custodianLabel(x: {
  custodian?: string | null;
  custodian_name?: string | null;
  custodian_email?: string | null;
}): string {
  return x.custodian_name ?? x.custodian_email ?? x.custodian ?? '—';
}
