import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';
import { fixtureCollection, fixtureItem, insertItems } from '../store/items-fixture.ts';

const ITEMS = 20_000;
/** Each item's path: about 2 KB of each manifest row, so that the collection is ~45 MB in either format. */
const PATH = `/${'p'.repeat(2_000)}`;
/**
 * What may lie between the producer and a reader that has stopped, in bytes: the chunk being built and the
 * response stream's buffer (objects of ≤ 64 K characters, 16 of them), the server socket's send buffer (Linux
 * tcp_wmem max 4 MiB) and the client socket's receive buffer (it stopped reading at its first chunk, so the
 * kernel did not grow it far). Generous: the point is a bound far under the collection, not the exact buffers.
 */
const SLACK_BYTES = 16 * 1024 * 1024;
/** A row's size in either format is over the path's length; the store is read in batches of at most 500. */
const SLACK_ROWS = Math.ceil(SLACK_BYTES / PATH.length) + 500;

/** Rows the manifest's producer has taken from the store (rendered by renderedItems), counted as they are rendered. */
const counted = vi.hoisted(() => ({ rowsRead: 0 }));
vi.mock('../../src/read/manifest-rows.ts', async (importOriginal) => {
  const m = await importOriginal<typeof import('../../src/read/manifest-rows.ts')>();
  return {
    ...m,
    renderedItems: (...[db, id, render]: Parameters<typeof m.renderedItems>) =>
      m.renderedItems(db, id, (row) => {
        counted.rowsRead += 1;
        return render(row);
      }),
  };
});

/** Resolves once `read()` has not moved for `quietMs` (polled), with its value. */
async function settled(read: () => number, quietMs = 600, everyMs = 50): Promise<number> {
  let last = read();
  let still = 0;
  while (still < quietMs) {
    await new Promise((r) => setTimeout(r, everyMs));
    const now = read();
    still = now === last ? still + everyMs : 0;
    last = now;
  }
  return last;
}

/**
 * Issue #25: the manifest must be produced as fast as its reader takes it, not ahead of the socket (streaming a
 * million-item manifest must not hold it in memory). A reader that stops after its first chunk over a real socket
 * must stop the producer within a bounded number of rows; the rest must arrive once it reads again.
 */
describe.each(testDatabases)('the manifest honours back-pressure ($name)', (database) => {
  let t: TestApp;
  let token: string;
  let collectionId: string;
  beforeAll(async () => {
    t = await startTestApp({ database, workers: false });
    const ids = await fixtureCollection(t.runtime.ctx.db);
    collectionId = ids.collectionId;
    token = await t.token('fixture');
    await insertItems(
      t.runtime.ctx.db,
      Array.from({ length: ITEMS }, (_, n) => fixtureItem(ids, n, { path: `${PATH}/${n}` })),
    );
  }, 120_000);
  afterAll(() => t.close());

  const rowMarker = { json: '{"onna_id":"itm_', csv: '\r\nitem,itm_' } as const;

  it.each(['json', 'csv'] as const)(
    'a reader that stops holds the %s producer within a bounded number of rows',
    async (format) => {
      counted.rowsRead = 0;
      const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
        http
          .get(
            `${t.url}/v1/collections/${collectionId}/manifest?format=${format}`,
            { headers: { authorization: `Bearer ${token}` }, agent: false },
            resolve,
          )
          .on('error', reject),
      );
      expect(res.statusCode).toBe(200);
      // paused in the handler itself: a flowing stream may emit more chunks before a promise's continuation runs
      const first = await new Promise<Buffer>((resolve) =>
        res.once('data', (chunk: Buffer) => {
          res.pause();
          resolve(chunk);
        }),
      );
      const readWhilePaused = await settled(() => counted.rowsRead);
      const received = first.length + res.readableLength;
      // the producer ran ahead of what the client took by no more than the buffers between them can hold
      expect(readWhilePaused).toBeLessThanOrEqual(Math.ceil(received / PATH.length) + SLACK_ROWS);
      expect(readWhilePaused).toBeLessThan(ITEMS / 2);

      const rest: Buffer[] = [first];
      res.on('data', (chunk: Buffer) => rest.push(chunk));
      await new Promise((resolve) => res.on('end', resolve).resume());
      const text = Buffer.concat(rest).toString('utf8');
      expect(text.split(rowMarker[format]).length - 1).toBe(ITEMS);
      if (format === 'json') expect((JSON.parse(text) as { items: unknown[] }).items).toHaveLength(ITEMS);
      expect(counted.rowsRead).toBe(ITEMS);
    },
  );
});
