import {
  createCustodyClient,
  CustodyApiError,
  type CustodyClient,
  type paths,
  type Schemas,
} from '../../client/src/index.ts';

export type { CustodyClient, Schemas };

type UsersAnswer = paths['/v1/collections/{id}/users']['get']['responses'][200]['content']['application/json'];
/** The user list of a `conf` collection, and of an `edrive` one. */
export type ConfUsersPage = Extract<UsersAnswer, { results: unknown }>;
export type DriveUsersPage = Extract<UsersAnswer, { entries: unknown }>;
export { collect, CustodyApiError } from '../../client/src/index.ts';

/** Signs in with client credentials; the tokens live only in this client, in memory, and are refreshed by it. */
export async function signIn(clientId: string, clientSecret: string): Promise<CustodyClient> {
  const custody = createCustodyClient({ baseUrl: location.origin, clientId, clientSecret });
  await custody.signIn();
  return custody;
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
