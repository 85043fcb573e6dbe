import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newCollection, startTestApp, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';
import { errorShapeProblems, rawExchange } from '../support/raw-http.ts';

const MIB = 1024 * 1024;

/** A chunked body of `size` bytes of JSON-ish text in chunks of `chunkSize`, last chunk included. */
function chunked(size: number, chunkSize: number): Buffer {
  const parts: Buffer[] = [];
  for (let sent = 0; sent < size; sent += chunkSize) {
    const n = Math.min(chunkSize, size - sent);
    parts.push(Buffer.from(`${n.toString(16)}\r\n`), Buffer.alloc(n, 0x61), Buffer.from('\r\n'));
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

// Issue #19: 14-19 MB chunked bodies to these routes sometimes got no answer at all on the embedded default.
describe.each(testDatabases)('an oversized body gets its 413, then a clean close ($name)', (database) => {
  let t: TestApp;
  let token: string;
  let routes: string[];
  beforeAll(async () => {
    t = await startTestApp({ database, workers: false });
    token = await t.token('oversized');
    const col = await newCollection(t.call, token, 'conf', 'oversized');
    routes = [`PATCH /v1/collections/${col}`, 'POST /v1/search', 'POST /v1/workspaces', 'POST /v1/wallet'];
  });
  afterAll(() => t.close());

  const head = (route: string, framing: string) =>
    Buffer.from(
      `${route} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n${framing}\r\n`,
    );

  async function expect413(route: string, parts: Buffer[], readAfterWrite: boolean) {
    const ex = await rawExchange(t.url, parts, { waitMs: 15_000, readAfterWrite });
    const what = `${route} (${readAfterWrite ? 'read after writing' : 'reading while writing'}, ${ex.written} bytes written)`;
    expect({ what, statuses: ex.responses.map((r) => r.status), ended: ex.ended }).toEqual({
      what,
      statuses: [413],
      ended: 'closed',
    });
    expect(errorShapeProblems(ex.responses[0])).toEqual([]);
    expect(ex.responses[0].headers.connection).toBe('close');
  }

  it('whether the client reads while it sends or only after, for chunked bodies of 14 to 19 MB', async () => {
    for (const [i, route] of routes.entries()) {
      for (const readAfterWrite of [true, false]) {
        const body = chunked(
          (14 + i + (readAfterWrite ? 2 : 0)) * MIB + 12_345,
          [64 * 1024, MIB, 300_000, 19 * MIB][i],
        );
        await expect413(route, [head(route, 'Transfer-Encoding: chunked\r\n'), body], readAfterWrite);
      }
    }
  });

  it('for a declared Content-Length over the limit, with the body sent after the headers', async () => {
    for (const route of routes) {
      const body = Buffer.alloc(16 * MIB, 0x61);
      await expect413(route, [head(route, `Content-Length: ${body.length}\r\n`), body], true);
    }
  });
});
