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
export interface RunSummary {
  run_id: string;
  status: string;
  counters: { listed: number; collected: number; skipped: number; unchanged: number; failed: number; bytes: number };
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
  latest_run?: RunSummary | null;
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
      collect(c.each(async (cursor) => page(await c.ok(c.api.GET('/v1/workspaces', { params: { query: { cursor, limit: LIMIT } } }))))),
    );
  }

  createWorkspace(body: { name: string; description: string }): Promise<{ onna_id: string }> {
    return this.api.run('POST /v1/workspaces', (c) => c.ok(c.api.POST('/v1/workspaces', { body })));
  }

  /** `GET /v1/collections` where the server has it, else every workspace's collections. */
  async listCollections(workspaceId?: string): Promise<Collection[]> {
    if (workspaceId) return this.api.run(`GET /v1/workspaces/${workspaceId}/collections`, (c) => workspaceCollections(c, workspaceId));
    return this.api.run('list collections', async (c) => {
      const all = await rawPages<Collection>(c, '/v1/collections');
      if (all) return all;
      const out: Collection[] = [];
      for (const w of await collect(c.each(async (cursor) => page(await c.ok(c.api.GET('/v1/workspaces', { params: { query: { cursor, limit: LIMIT } } })))))) {
        out.push(...(await workspaceCollections(c, w.onna_id)));
      }
      return out;
    });
  }

  getCollection(id: string): Promise<Collection> {
    return this.api.run(`GET /v1/collections/${id}`, (c) => c.ok(c.api.GET('/v1/collections/{id}', { params: { path: { id } } })) as Promise<Collection>);
  }

  createCollection(body: { name: string; onna_parent_id: string; type: string; credential_id: string }): Promise<{ onna_id: string; type: string }> {
    return this.api.run('POST /v1/collections', (c) => c.ok(c.api.POST('/v1/collections', { body })));
  }

  startCollection(id: string): Promise<{ run_id: string; created: boolean; sync_status: string }> {
    return this.api.run(`POST /v1/collections/${id}/start`, (c) => c.ok(c.api.POST('/v1/collections/{id}/start', { params: { path: { id } } })));
  }

  /** The manifest as a stream. */
  manifest(id: string, format: 'csv' | 'json'): Promise<Response> {
    return this.api.run(`GET /v1/collections/${id}/manifest`, (c) => ok(c.fetch(`/v1/collections/${enc(id)}/manifest?format=${format}`)));
  }

  /** Export calls (issue 24) through the authenticated client; the answer is checked for a 2xx. */
  exportCall(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    const init: RequestInit = { method, headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) }, ...(body !== undefined && { body: JSON.stringify(body) }) };
    return this.api.run(`${method} ${path}`, (c) => ok(c.fetch(path, init)));
  }

  listItems(id: string, query: { kind?: string; custodian?: string }, max: number): Promise<Item[]> {
    return this.api.run(`GET /v1/collections/${id}/items`, (c) =>
      collect(
        c.each(async (cursor) => page(await c.ok(c.api.GET('/v1/collections/{id}/items', { params: { path: { id }, query: { ...query, cursor, limit: LIMIT } } })))),
        max,
      ),
    );
  }

  search(body: { query: string; size?: number; collection_ids?: string[]; workspace_id?: string }) {
    return this.api.run('POST /v1/search', (c) => c.ok(c.api.POST('/v1/search', { body })));
  }

  /** The collection's live event stream (server-sent events); null when the server has none. */
  events(id: string, signal: AbortSignal): Promise<Response | null> {
    return this.api.run(`GET /v1/collections/${id}/events`, async (c) => {
      const res = await c.fetch(`/v1/collections/${enc(id)}/events`, { signal, headers: { accept: 'text/event-stream' } });
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
    c.each(async (cursor) => page(await c.ok(c.api.GET('/v1/workspaces/{id}/collections', { params: { path: { id }, query: { cursor, limit: LIMIT } } })))),
  ) as Promise<Collection[]>;
}

/** Every page of a list the typed schema may not have yet; null when the server answers 404/405 (no such route). */
async function rawPages<T>(c: CustodyClient, path: string): Promise<T[] | null> {
  const out: T[] = [];
  let cursor: string | null = null;
  do {
    const res = await c.fetch(`${path}?limit=${LIMIT}${cursor ? `&cursor=${enc(cursor)}` : ''}`);
    if (res.status === 404 || res.status === 405) return (await res.body?.cancel(), null);
    const body = (await (await ok(Promise.resolve(res))).json()) as { items: T[]; cursor: string | null };
    out.push(...body.items);
    cursor = body.cursor;
  } while (cursor);
  return out;
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
