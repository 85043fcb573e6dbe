import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.ts';
import { backendOf, indexItem, removeCollectionFromIndex, removeItemsFromIndex } from '../../src/search/index.ts';
import { vttToText } from '../../src/search/extract.ts';
import { searchItems, type SearchRequest } from '../../src/search/service.ts';
import type { Database } from '../../src/store/db.ts';
import { testDatabases } from '../support/databases.ts';
import { seedAccount, seedCollection, seedItem, seedWorkspace } from './fixtures.ts';

const KINDS = ['meeting', 'transcript', 'meeting_chat', 'chat_message', 'channel_message', 'file', 'folder'];

const TRANSCRIPT = `WEBVTT

1
00:00:01.000 --> 00:00:04.000
<v Alice Chen>Good morning everyone, let's start.

2
00:00:05.000 --> 00:00:09.000
<v Bob Stone>The quarterly budget review is due on Friday.
`;

/** The one contract every SearchIndex implementation passes: run on SQLite, and on PostgreSQL when configured. */
for (const database of testDatabases) {
  describe(`SearchIndex contract: ${database.name}`, () => {
    let handle: Awaited<ReturnType<typeof database.open>>;
    let db: Database;
    let acc: string;
    let ws: string;
    let ws2: string;
    let conf: string;
    let drive: string;
    let other: string;
    const ids: Record<string, string> = {};

    const search = async (query: string, extra: Partial<SearchRequest> = {}, account = acc) =>
      searchItems(db, account, { query, ...extra }, { kinds: KINDS });
    const found = async (query: string, extra: Partial<SearchRequest> = {}) =>
      (await search(query, extra)).hits.map((h) => h.item.id);

    beforeAll(async () => {
      handle = await database.open();
      db = handle.db;
      expect(backendOf(db)).toBe(database.name);
      acc = await seedAccount(db);
      ws = await seedWorkspace(db, acc);
      ws2 = await seedWorkspace(db, acc);
      conf = await seedCollection(db, acc, ws, 'conf');
      drive = await seedCollection(db, acc, ws2, 'edrive');
      ids.transcript = await seedItem(db, acc, conf, {
        kind: 'transcript',
        name: 'Weekly sync.vtt',
        content: vttToText(TRANSCRIPT),
        custodian: 'alice@example.com',
        modified: '2024-03-10T10:00:00Z',
      });
      ids.chat = await seedItem(db, acc, conf, {
        kind: 'chat_message',
        name: 'Message from Bob',
        text: 'Can you send the spreadsheet before lunch?',
        custodian: 'bob@example.com',
        created: '2024-04-02T08:30:00.250Z',
      });
      ids.meeting = await seedItem(db, acc, conf, {
        kind: 'meeting',
        name: 'Board meeting',
        metadata: {
          topic: 'Acquisition of Zephyr Corp',
          participants: [{ email: 'carol@example.com' }],
          password: 'hunter2secret',
          join_url: 'https://zoom.us/j/1?pwd=abcdef',
        },
        custodian: 'carol@example.com',
        modified: '2024-05-01T00:00:00Z',
      });
      ids.file = await seedItem(db, acc, drive, {
        kind: 'file',
        name: 'notes.txt',
        path: '/drive/Finance/notes.txt',
        content: 'Reminder: the review of the quarterly numbers and the budget, in that order.',
        custodian: 'dave@example.com',
        modified: '2024-06-15T12:00:00Z',
      });
      ids.deleted = await seedItem(db, acc, drive, {
        kind: 'file',
        name: 'gone.txt',
        content: 'obsolete zebra text',
        tombstoned: true,
      });
      other = await seedAccount(db);
      const otherWs = await seedWorkspace(db, other);
      const otherCol = await seedCollection(db, other, otherWs);
      ids.foreign = await seedItem(db, other, otherCol, {
        kind: 'transcript',
        name: 'x.vtt',
        content: 'quarterly budget review secret plans',
      });
    });

    afterAll(async () => {
      await handle?.close();
    });

    it('finds a phrase spoken in a transcript, a word in a chat message and a word inside a text file', async () => {
      expect(await found('"budget review is due"')).toEqual([ids.transcript]);
      expect(await found('spreadsheet')).toEqual([ids.chat]);
      expect(await found('reminder')).toEqual([ids.file]);
    });

    it('ranks the exact phrase above the same words scattered', async () => {
      const res = await search('quarterly budget review');
      expect(res.hits.map((h) => h.item.id)).toEqual([ids.transcript, ids.file]);
      expect(res.hits[0].score).toBeGreaterThan(res.hits[1].score);
      expect(res.total).toBe(2);
    });

    it('supports prefixes, OR, NOT and grouping', async () => {
      expect(await found('spread*')).toEqual([ids.chat]);
      expect((await found('spreadsheet OR reminder')).sort()).toEqual([ids.chat, ids.file].sort());
      expect(await found('budget NOT friday')).toEqual([ids.file]);
      expect(await found('budget AND NOT (friday OR morning)')).toEqual([ids.file]);
      expect(await found('(zephyr OR spreadsheet) lunch')).toEqual([ids.chat]);
    });

    it('searches metadata (topics, participants, e-mails) but never secret fields or URLs', async () => {
      expect(await found('zephyr acquisition')).toEqual([ids.meeting]);
      expect(await found('carol@example.com')).toEqual([ids.meeting]);
      expect(await found('hunter2secret')).toEqual([]);
      expect(await found('abcdef')).toEqual([]);
    });

    it('restricts name:, path:, kind: and custodian: to their field', async () => {
      expect(await found('name:board')).toEqual([ids.meeting]);
      expect(await found('name:budget')).toEqual([]);
      expect(await found('path:finance')).toEqual([ids.file]);
      expect(await found('budget kind:file')).toEqual([ids.file]);
      expect(await found('kind:meeting')).toEqual([ids.meeting]);
      expect(await found('budget custodian:ALICE@example.com')).toEqual([ids.transcript]);
      expect((await found('custodian:bob@example.com OR custodian:dave@example.com')).sort()).toEqual(
        [ids.chat, ids.file].sort(),
      );
    });

    it('applies every request filter', async () => {
      expect(await found('budget', { workspace_id: ws2 })).toEqual([ids.file]);
      expect(await found('budget', { collection_ids: [conf] })).toEqual([ids.transcript]);
      expect(await found('budget', { kinds: ['file'] })).toEqual([ids.file]);
      expect(await found('budget', { custodians: ['Alice@Example.com'] })).toEqual([ids.transcript]);
      expect(await found('budget', { date_from: '2024-06-01' })).toEqual([ids.file]);
      expect(await found('budget', { date_to: '2024-03-10' })).toEqual([ids.transcript]);
      expect(await found('budget', { date_to: '2024-03-10T10:00:00Z' })).toEqual([ids.transcript]);
      expect(await found('budget', { date_to: '2024-03-10T09:59:59Z' })).toEqual([]);
      expect(
        await found('spreadsheet', { date_from: '2024-04-02T08:30:00Z', date_to: '2024-04-02T08:30:00Z' }),
      ).toEqual([ids.chat]);
    });

    it('hides tombstoned items unless include_deleted', async () => {
      expect(await found('zebra')).toEqual([]);
      expect(await found('zebra', { include_deleted: true })).toEqual([ids.deleted]);
    });

    it("never returns another account's items", async () => {
      expect(await found('secret plans')).toEqual([]);
      expect((await search('secret plans', {}, other)).hits.map((h) => h.item.id)).toEqual([ids.foreign]);
    });

    it('pages with a cursor bound to its query', async () => {
      const first = await search('budget OR spreadsheet OR zephyr', { size: 2 });
      expect(first.total).toBe(4);
      expect(first.hits).toHaveLength(2);
      const second = await search('budget OR spreadsheet OR zephyr', { size: 2, cursor: first.cursor! });
      expect(second.hits).toHaveLength(2);
      expect(second.cursor).toBeNull();
      expect(new Set([...first.hits, ...second.hits].map((h) => h.item.id)).size).toBe(4);
      await expect(search('budget', { cursor: first.cursor! })).rejects.toBeInstanceOf(DomainError);
    });

    it('marks matches in HTML-escaped highlights', async () => {
      const [hit] = (await search('"budget review"')).hits.filter((h) => h.item.id === ids.transcript);
      expect(hit.highlights[0]).toContain('<mark>budget review</mark>');
      expect(hit.highlights[0]).toContain('Bob Stone');
      const named = await search('name:board');
      expect(named.hits[0].highlights[0]).toBe('<mark>Board</mark> meeting');
    });

    it('takes snippets from the content first, a metadata value on its own, and shows each match once', async () => {
      const col = await seedCollection(db, acc, ws, 'conf');
      const recording = await seedItem(db, acc, col, {
        kind: 'transcript',
        name: 'Vendor negotiation 11.vtt',
        content: 'Dana: the vendor negotiation went well, we agreed on the price.',
        metadata: { uuid: 'gqjsA0h6CA0TZ6OrTiBofk==', topic: 'Vendor negotiation 11', file_type: 'MP4' },
      });
      const [hit] = (await search('"vendor negotiation"', { collection_ids: [col] })).hits;
      expect(hit.item.id).toBe(recording);
      // The spoken words, not the name or the metadata that repeat the same phrase.
      expect(hit.highlights).toEqual(['Dana: the <mark>vendor negotiation</mark> went well, we agreed on the price.']);

      const meeting = await seedItem(db, acc, col, {
        kind: 'meeting',
        name: 'Weekly call',
        metadata: { uuid: 'Zx9Qw1==', topic: 'Osprey project kickoff', type: 'MP4', host: 'dana@example.com' },
      });
      const [only] = (await search('osprey', { collection_ids: [col] })).hits;
      expect(only.item.id).toBe(meeting);
      // The metadata value that matched, alone: not the ids and types around it.
      expect(only.highlights).toEqual(['<mark>Osprey</mark> project kickoff']);
    });

    it('re-indexes in place: new words replace old ones, undefined content keeps the content text', async () => {
      const col = await seedCollection(db, acc, ws);
      const itemId = await seedItem(db, acc, col, { kind: 'file', name: 'draft.txt', content: 'pelican' });
      const row = await db.selectFrom('items').selectAll().where('id', '=', itemId).executeTakeFirstOrThrow();
      await db.transaction().execute((trx) => indexItem(trx, { ...row, name: 'final.txt' }));
      expect(await found('pelican name:final')).toEqual([itemId]);
      expect(await found('name:draft')).toEqual([]);
      await db.transaction().execute((trx) => indexItem(trx, row, 'flamingo'));
      expect(await found('pelican')).toEqual([]);
      expect(await found('flamingo')).toEqual([itemId]);
      await db.transaction().execute((trx) => removeItemsFromIndex(trx, [itemId]));
      expect(await found('flamingo')).toEqual([]);
    });

    it('drops a collection from the index, and a rolled-back transaction indexes nothing', async () => {
      const col = await seedCollection(db, acc, ws);
      await seedItem(db, acc, col, { kind: 'file', name: 'a.txt', content: 'walrus' });
      expect(await found('walrus')).toHaveLength(1);
      await db.transaction().execute((trx) => removeCollectionFromIndex(trx, col));
      expect(await found('walrus')).toEqual([]);
      const row = await db.selectFrom('items').selectAll().where('collection_id', '=', col).executeTakeFirstOrThrow();
      await expect(
        db.transaction().execute(async (trx) => {
          await indexItem(trx, row, 'narwhal');
          throw new Error('rollback');
        }),
      ).rejects.toThrow('rollback');
      expect(await found('narwhal')).toEqual([]);
    });

    it('answers 400 naming the problem for a malformed query or a bad filter', async () => {
      await expect(search('"open')).rejects.toMatchObject({
        status: 400,
        field: 'query',
        detail: expect.stringContaining('unterminated'),
      });
      await expect(search('x', { kinds: ['webinar'] })).rejects.toMatchObject({
        status: 400,
        field: 'kinds/0',
      });
      await expect(search('x', { date_from: 'yesterday' })).rejects.toMatchObject({
        status: 400,
        field: 'date_from',
      });
      // No such days: not read as 1 March or 1 May.
      await expect(search('x', { date_from: '2024-02-30' })).rejects.toMatchObject({
        status: 400,
        field: 'date_from',
      });
      await expect(search('x', { date_to: '2023-04-31T10:00:00Z' })).rejects.toMatchObject({
        status: 400,
        field: 'date_to',
      });
      await expect(search('x', { date_from: '2024-02-29' })).resolves.toBeDefined();
    });
  });
}
