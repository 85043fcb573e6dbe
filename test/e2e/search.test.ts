import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vttToText } from '../../src/search/extract.ts';
import { seedItem } from '../search/fixtures.ts';
import { inertConnectors } from '../search/inert-connectors.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

const TRANSCRIPT = `WEBVTT

1
00:00:01.000 --> 00:00:04.000
Alice Chen: Thanks for joining.

2
00:00:04.500 --> 00:00:09.000
Bob Stone: We must finalize the merger agreement with Zephyr by Friday.
`;

type Json = Record<string, any>;

describe.each(testDatabases.map((d) => [d.name, d] as const))('POST /v1/search on %s', (_name, database) => {
  let t: TestApp;
  let token: string;
  let accountId: string;
  const ids: Record<string, string> = {};
  const cols: Record<string, string> = {};

  const search = async (body: Json, tok = token) => {
    const res = await t.call(tok, 'POST', '/v1/search', { json: body });
    return { status: res.status, body: (await res.json()) as Json, res };
  };
  const found = async (body: Json) => {
    const r = await search(body);
    expect(r.status).toBe(200);
    return (r.body.results as Json[]).map((x) => x.item.onna_id as string);
  };

  async function collection(tok: string, type: 'conf' | 'edrive') {
    const call = async (path: string, json: Json) =>
      ((await (await t.call(tok, 'POST', path, { json })).json()) as Json).onna_id as string;
    const ws = await call('/v1/workspaces', { name: `ws ${type}`, description: '' });
    const wallet = await call('/v1/wallet', { name: 'w', credential_type_name: 'Datasource', config_type: type });
    const col = await call('/v1/collections', { name: type, onna_parent_id: ws, type, credential_id: wallet });
    return { ws, col };
  }

  beforeAll(async () => {
    t = await startTestApp({ database, workers: false, connectors: inertConnectors });
    const client = await t.client('acme');
    accountId = client.accountId;
    token = await t.token('acme');
    const conf = await collection(token, 'conf');
    const drive = await collection(token, 'edrive');
    Object.assign(cols, { conf: conf.col, drive: drive.col, confWs: conf.ws, driveWs: drive.ws });
    const db = t.runtime.ctx.db;
    ids.transcript = await seedItem(db, accountId, conf.col, {
      kind: 'transcript',
      name: 'Board call transcript.vtt',
      content: vttToText(TRANSCRIPT),
      custodian: 'alice@example.com',
      modified: '2024-02-01T10:00:00Z',
    });
    ids.chat = await seedItem(db, accountId, conf.col, {
      kind: 'chat_message',
      name: 'Chat with Bob',
      text: 'Did you shred the invoices from March?',
      metadata: { chat_type: 'one_to_one', sender: 'bob@example.com', to: 'alice@example.com' },
      custodian: 'bob@example.com',
      created: '2024-03-05T09:00:00Z',
    });
    ids.file = await seedItem(db, accountId, drive.col, {
      kind: 'file',
      name: 'plans.txt',
      path: '/drive/root:/Legal/plans.txt',
      content: 'Agreement draft: the merger is on hold; Zephyr asked for more time.',
      custodian: 'carol@example.com',
      modified: '2024-04-10T12:00:00Z',
    });
    ids.tombstoned = await seedItem(db, accountId, drive.col, {
      kind: 'file',
      name: 'old.txt',
      content: 'merger rumours',
      tombstoned: true,
    });
    const otherClient = await t.client('globex');
    const otherToken = await t.token('globex');
    const other = await collection(otherToken, 'conf');
    ids.foreign = await seedItem(db, otherClient.accountId, other.col, {
      kind: 'transcript',
      name: 'x.vtt',
      content: 'merger agreement with Zephyr, shred everything',
    });
  });
  afterAll(() => t.close());

  it('finds a phrase spoken in a transcript, a word in a one-to-one chat and a word inside a OneDrive text file', async () => {
    expect(await found({ query: '"finalize the merger agreement"' })).toEqual([ids.transcript]);
    expect(await found({ query: 'shred' })).toEqual([ids.chat]);
    expect(await found({ query: 'draft', kinds: ['file'] })).toEqual([ids.file]);
  });

  it('returns each item exactly as the items API does, with a score and <mark> highlights', async () => {
    const { body } = await search({ query: '"merger agreement"' });
    expect(body.total).toBe(1);
    expect(body.total_relation).toBe('eq');
    expect(body.cursor).toBeNull();
    const [hit] = body.results as Json[];
    const itemRes = await t.call(token, 'GET', `/v1/collections/${cols.conf}/items/${ids.transcript}`);
    expect(itemRes.status).toBe(200);
    expect(hit.item).toEqual(await itemRes.json());
    expect(typeof hit.score).toBe('number');
    expect(hit.highlights[0]).toContain('<mark>merger agreement</mark> with Zephyr');
  });

  it('ranks the exact phrase above the same words scattered', async () => {
    const { body } = await search({ query: 'merger agreement' });
    expect((body.results as Json[]).map((r) => r.item.onna_id)).toEqual([ids.transcript, ids.file]);
    expect(body.results[0].score).toBeGreaterThan(body.results[1].score);
  });

  it('respects every filter', async () => {
    const q = 'merger OR shred';
    expect((await found({ query: q })).sort()).toEqual([ids.transcript, ids.chat, ids.file].sort());
    expect((await found({ query: q, workspace_id: cols.confWs })).sort()).toEqual([ids.transcript, ids.chat].sort());
    expect(await found({ query: q, collection_ids: [cols.drive] })).toEqual([ids.file]);
    expect(await found({ query: q, kinds: ['chat_message'] })).toEqual([ids.chat]);
    expect(await found({ query: q, custodians: ['CAROL@example.com'] })).toEqual([ids.file]);
    expect(await found({ query: q, date_from: '2024-03-01', date_to: '2024-03-31' })).toEqual([ids.chat]);
    expect(await found({ query: q, date_from: '2024-04-10T12:00:00Z' })).toEqual([ids.file]);
    expect(await found({ query: 'rumours' })).toEqual([]);
    expect(await found({ query: 'rumours', include_deleted: true })).toEqual([ids.tombstoned]);
    expect(await found({ query: 'custodian:bob@example.com' })).toEqual([ids.chat]);
    expect(await found({ query: 'name:plans kind:file' })).toEqual([ids.file]);
  });

  it('pages with size and cursor', async () => {
    const first = await search({ query: 'merger OR shred', size: 2 });
    expect(first.body.total).toBe(3);
    expect(first.body.results).toHaveLength(2);
    const second = await search({ query: 'merger OR shred', size: 2, cursor: first.body.cursor });
    expect(second.body.results).toHaveLength(1);
    expect(second.body.cursor).toBeNull();
    const all = [...first.body.results, ...second.body.results].map((r: Json) => r.item.onna_id);
    expect(new Set(all).size).toBe(3);
    expect((await search({ query: 'other', cursor: first.body.cursor })).status).toBe(400);
    expect((await search({ query: 'x', size: 101 })).status).toBe(400);
  });

  it("never returns another account's items", async () => {
    expect(await found({ query: 'shred everything' })).toEqual([]);
    expect(await found({ query: 'merger', collection_ids: [ids.foreign] })).toEqual([]);
  });

  it('answers 400 in the error shape naming the problem of a malformed query', async () => {
    for (const [query, detail] of [
      ['"merger agreement', 'unterminated quoted phrase'],
      ['merger AND', 'AND at position 8 has nothing after it'],
      ['title:merger', 'unknown field "title:"'],
      ['NOT merger', 'NOT needs a positive term'],
    ] as const) {
      const { status, body, res } = await search({ query });
      expect(status).toBe(400);
      expect(body).toMatchObject({
        code: '00400_bad_request',
        title: 'Bad Request',
        source: { pointer: '/body/query' },
        id: res.headers.get('x-correlation-id'),
      });
      expect(body.detail).toContain(detail);
    }
    expect((await search({ query: 'x', kinds: ['webinar'] })).body.source).toEqual({ pointer: '/body/kinds/0' });
    expect((await search({ query: 'x', date_to: 'soon' })).body.source).toEqual({ pointer: '/body/date_to' });
    expect((await search({ query: 'x', users: [] })).status).toBe(400);
    expect((await t.call(null, 'POST', '/v1/search', { json: { query: 'x' } })).status).toBe(401);
  });

  it('answers 429 at the 301st search in a minute while other endpoints still work', async () => {
    const tok = await t.token('acme');
    const statuses: number[] = [];
    for (let batch = 0; batch < 300; batch += 25) {
      const res = await Promise.all(
        Array.from({ length: 25 }, () => t.call(tok, 'POST', '/v1/search', { json: { query: 'merger' } })),
      );
      statuses.push(...res.map((r) => r.status));
      const remaining = res.map((r) => Number(r.headers.get('ratelimit-remaining')));
      expect(Math.min(...remaining)).toBe(300 - batch - 25);
    }
    expect(statuses.every((s) => s === 200)).toBe(true);
    const refused = await t.call(tok, 'POST', '/v1/search', { json: { query: 'merger' } });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({
      code: '00429_too_many_requests',
      title: 'Too Many Requests',
      source: null,
    });
    const list = await t.call(tok, 'GET', '/v1/workspaces');
    expect(list.status).toBe(200);
    expect(list.headers.get('ratelimit-limit')).toBe('600');
    expect((await t.call(tok, 'GET', '/v1/legalhold/holds')).status).toBe(200);
  });
});
