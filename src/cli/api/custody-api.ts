import { collect, CustodyApiError, type CustodyClient } from '../../../client/src/index.ts';
import type { Api } from './client.ts';

export interface Workspace {
  onna_id: string;
  name: string;
  description: string;
  creation_datetime: string;
}
export interface Item {
  onna_id: string;
  kind: string;
  name: string;
  path: string;
  custodian: string | null;
  size: number | null;
  sha256: string | null;
  collected_datetime: string;
}
export interface Counters {
  listed: number;
  collected: number;
  skipped: number;
  unchanged: number;
  failed: number;
  bytes: number;
  /** The reconciliation's categories, where the server reports them beside the older counters. */
  excluded?: number;
  not_present?: number;
}
export interface RunSummary {
  run_id: string;
  status: string;
  trigger?: string;
  counters: Counters;
  started_datetime: string | null;
  finished_datetime: string | null;
  error_count: number;
}
export interface Collection {
  onna_id: string;
  name: string;
  type: string;
  onna_parent_id: string;
  credential_id: string;
  sync_status: string;
  type_sync: string;
  creation_datetime: string;
  status_reason?: string | null;
  credentials_paired?: boolean;
  sync_filters?: unknown;
  latest_run?: RunSummary | null;
}
export interface Wallet {
  onna_id: string;
  name: string;
  credential_type_name: string;
  config_type: string;
  paired: boolean;
  paired_datetime: string | null;
  creation_datetime: string;
}
export interface Hold {
  onna_id: string;
  name: string;
  description: string;
  workspace_id: string | null;
  collection_ids: string[];
  status: string;
  creation_datetime: string;
  released_at?: string | null;
  released_by?: string | null;
}
export interface RunDetail extends RunSummary {
  error: string | null;
  errors: Array<{ source_id: string | null; kind: string | null; reason: string; datetime: string }>;
  errors_truncated: boolean;
}

const LIMIT = 100;
const enc = encodeURIComponent;

/** The API calls the commands make, on the typed client. */
export class CustodyApi {
  constructor(private readonly api: Api) {}

  get baseUrl(): string {
    return this.api.baseUrl;
  }

  listWorkspaces(): Promise<Workspace[]> {
    return this.api.run('GET /v1/workspaces', (c) =>
      collect(
        c.each(async (cursor) =>
          page(await c.ok(c.api.GET('/v1/workspaces', { params: { query: { cursor, limit: LIMIT } } }))),
        ),
      ),
    );
  }

  createWorkspace(body: { name: string; description: string }): Promise<{ onna_id: string }> {
    return this.api.run('POST /v1/workspaces', (c) => c.ok(c.api.POST('/v1/workspaces', { body })));
  }

  /** `GET /v1/collections` where the server has it, else every workspace's collections. */
  async listCollections(workspaceId?: string): Promise<Collection[]> {
    if (workspaceId)
      return this.api.run(`GET /v1/workspaces/${workspaceId}/collections`, (c) => workspaceCollections(c, workspaceId));
    return this.api.run('list collections', async (c) => {
      const all = await rawPages<Collection>(c, '/v1/collections');
      if (all) return all;
      const out: Collection[] = [];
      for (const w of await collect(
        c.each(async (cursor) =>
          page(await c.ok(c.api.GET('/v1/workspaces', { params: { query: { cursor, limit: LIMIT } } }))),
        ),
      )) {
        out.push(...(await workspaceCollections(c, w.onna_id)));
      }
      return out;
    });
  }

  getCollection(id: string): Promise<Collection> {
    return this.api.run(
      `GET /v1/collections/${id}`,
      (c) => c.ok(c.api.GET('/v1/collections/{id}', { params: { path: { id } } })) as Promise<Collection>,
    );
  }

  createCollection(body: {
    name: string;
    onna_parent_id: string;
    type: string;
    credential_id: string;
  }): Promise<{ onna_id: string; type: string }> {
    return this.api.run('POST /v1/collections', (c) => c.ok(c.api.POST('/v1/collections', { body })));
  }

  startCollection(id: string): Promise<{ run_id: string; created: boolean; sync_status: string }> {
    return this.api.run(`POST /v1/collections/${id}/start`, (c) =>
      c.ok(c.api.POST('/v1/collections/{id}/start', { params: { path: { id } } })),
    );
  }

  /** The manifest as a stream. */
  manifest(id: string, format: 'csv' | 'json'): Promise<Response> {
    return this.api.run(`GET /v1/collections/${id}/manifest`, (c) =>
      ok(c.fetch(`/v1/collections/${enc(id)}/manifest?format=${format}`)),
    );
  }

  /** Export calls (issue 24) through the authenticated client; the answer is checked for a 2xx. */
  exportCall(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    const init: RequestInit = {
      method,
      headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    };
    return this.api.run(`${method} ${path}`, (c) => ok(c.fetch(path, init)));
  }

  listItems(id: string, query: { kind?: string; custodian?: string }, max: number): Promise<Item[]> {
    return this.api.run(`GET /v1/collections/${id}/items`, (c) =>
      collect(
        c.each(async (cursor) =>
          page(
            await c.ok(
              c.api.GET('/v1/collections/{id}/items', {
                params: { path: { id }, query: { ...query, cursor, limit: LIMIT } },
              }),
            ),
          ),
        ),
        max,
      ),
    );
  }

  search(body: { query: string; size?: number; collection_ids?: string[]; workspace_id?: string }) {
    return this.api.run('POST /v1/search', (c) => c.ok(c.api.POST('/v1/search', { body })));
  }

  listWallets(): Promise<Wallet[]> {
    return this.api.run('GET /v1/wallet', (c) => rawPages<Wallet>(c, '/v1/wallet').then((rows) => rows ?? []));
  }

  createWallet(body: {
    name: string;
    credential_type_name: string;
    config_type: string;
  }): Promise<{ onna_id: string }> {
    return this.call('POST', '/v1/wallet', body);
  }

  deleteWallet(id: string): Promise<void> {
    return this.call('DELETE', `/v1/wallet/${enc(id)}`);
  }

  deleteWorkspace(id: string): Promise<void> {
    return this.call('DELETE', `/v1/workspaces/${enc(id)}`);
  }

  deleteCollection(id: string): Promise<void> {
    return this.call('DELETE', `/v1/collections/${enc(id)}`);
  }

  patchCollection(id: string, body: Record<string, unknown>): Promise<void> {
    return this.call('PATCH', `/v1/collections/${enc(id)}`, body);
  }

  /** The provider consent URL (as JSON for every type: `Accept: application/json`). */
  authorizationUrl(type: string, redirectTo: string, state: string): Promise<{ authorization_url: string }> {
    return this.call(
      'GET',
      `/v1/collections/authorization_url/${enc(type)}?redirect_to=${enc(redirectTo)}&state=${enc(state)}`,
    );
  }

  pairCredentials(id: string, code: string): Promise<void> {
    return this.call('POST', `/v1/collections/${enc(id)}/pair_credentials?auth_code=${enc(code)}`);
  }

  listRuns(id: string, max: number): Promise<RunSummary[]> {
    return this.api.run(`GET /v1/collections/${id}/runs`, (c) =>
      rawPages<RunSummary>(c, `/v1/collections/${enc(id)}/runs`, max, 'runs').then((rows) => rows ?? []),
    );
  }

  getRun(id: string, runId: string): Promise<RunDetail> {
    return this.call('GET', `/v1/collections/${enc(id)}/runs/${enc(runId)}`);
  }

  /** The reconciliation as a response (JSON, or CSV with `rows`). */
  reconciliation(id: string, runId: string, csv?: 'custodians' | 'exceptions'): Promise<Response> {
    const query = csv ? `?format=csv&rows=${csv}` : '';
    return this.api.run(`GET /v1/collections/${id}/runs/${runId}/reconciliation`, (c) =>
      ok(c.fetch(`/v1/collections/${enc(id)}/runs/${enc(runId)}/reconciliation${query}`)),
    );
  }

  listHolds(status?: string): Promise<Hold[]> {
    return this.api.run('GET /v1/legalhold/holds', (c) =>
      rawPages<Hold>(c, `/v1/legalhold/holds${status ? `?status=${enc(status)}` : ''}`).then((rows) => rows ?? []),
    );
  }

  createHold(body: {
    name: string;
    description?: string;
    collection_ids?: string[];
    workspace_id?: string;
  }): Promise<{ onna_id: string }> {
    return this.call('POST', '/v1/legalhold/holds', body);
  }

  releaseHold(id: string): Promise<void> {
    return this.call('DELETE', `/v1/legalhold/holds/${enc(id)}`);
  }

  /** An item's content as a response (a Range header resumes a partial download). */
  itemContent(id: string, itemId: string, headers: Record<string, string> = {}): Promise<Response> {
    return this.api.run(`GET /v1/collections/${id}/items/${itemId}/content`, (c) =>
      ok(c.fetch(`/v1/collections/${enc(id)}/items/${enc(itemId)}/content`, { headers })),
    );
  }

  getItem(id: string, itemId: string): Promise<Item> {
    return this.call('GET', `/v1/collections/${enc(id)}/items/${enc(itemId)}`);
  }

  /** One page of a discovery list (users, folders, channels) as the server answers it. */
  discovery<T>(
    id: string,
    list: 'users' | 'folders' | 'channels',
    query: Record<string, string | undefined>,
  ): Promise<T> {
    const q = new URLSearchParams(
      Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined),
    ).toString();
    return this.call('GET', `/v1/collections/${enc(id)}/${list}${q ? `?${q}` : ''}`);
  }

  /** One JSON call; the answer's body (undefined for 204). */
  private call<T>(method: string, path: string, body?: unknown): Promise<T> {
    return this.api.run(`${method} ${path.split('?')[0]}`, async (c) => {
      const res = await ok(
        c.fetch(path, {
          method,
          headers: { accept: 'application/json', ...(body !== undefined && { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
      if (res.status === 204) return undefined as T;
      return (await res.json()) as T;
    });
  }

  /** The collection's live event stream (server-sent events); null when the server has none. */
  events(id: string, signal: AbortSignal): Promise<Response | null> {
    return this.api.run(`GET /v1/collections/${id}/events`, async (c) => {
      const res = await c.fetch(`/v1/collections/${enc(id)}/events`, {
        signal,
        headers: { accept: 'text/event-stream' },
      });
      if (res.status === 404) return (await res.body?.cancel(), null);
      return ok(Promise.resolve(res));
    });
  }
}

function page<T>(body: { items: T[]; cursor: string | null }) {
  return { items: body.items, next: body.cursor };
}

function workspaceCollections(c: CustodyClient, id: string): Promise<Collection[]> {
  return collect(
    c.each(async (cursor) =>
      page(
        await c.ok(
          c.api.GET('/v1/workspaces/{id}/collections', { params: { path: { id }, query: { cursor, limit: LIMIT } } }),
        ),
      ),
    ),
  );
}

/** Every page of a list the typed schema may not have yet; null when the server answers 404/405 (no such route). */
async function rawPages<T>(
  c: CustodyClient,
  path: string,
  max = Infinity,
  key: 'items' | 'runs' = 'items',
): Promise<T[] | null> {
  const out: T[] = [];
  let cursor: string | null = null;
  const sep = path.includes('?') ? '&' : '?';
  do {
    const res = await c.fetch(`${path}${sep}limit=${LIMIT}${cursor ? `&cursor=${enc(cursor)}` : ''}`);
    if (res.status === 404 || res.status === 405) return (await res.body?.cancel(), null);
    const body = (await (await ok(Promise.resolve(res))).json()) as Record<typeof key, T[]> & { cursor: string | null };
    out.push(...body[key]);
    cursor = body.cursor;
  } while (cursor && out.length < max);
  return out.slice(0, max);
}

async function ok(response: Promise<Response>): Promise<Response> {
  const res = await response;
  if (res.ok) return res;
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the text is the detail
  }
  throw new CustodyApiError(res.status, body, res.headers.get('x-correlation-id') ?? undefined);
}
