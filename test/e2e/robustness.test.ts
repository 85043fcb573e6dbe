import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * Every operation of the OpenAPI document, fed malformed input, answers a 4xx in the one error shape: never a 500,
 * never a stack trace. The document is read from the running server, so a new route is covered automatically.
 */
const NASTY_STRINGS = [
  '',
  ' ',
  'x'.repeat(5000),
  '../../etc/passwd',
  '%00',
  '\u0000',
  '☃💥',
  "' or 1=1 --",
  '{"a":',
  '[]',
  'null',
  '-1',
  '1e309',
];
const NASTY_BODIES: unknown[] = [
  null,
  [],
  'text',
  42,
  true,
  { a: { b: { c: [1, 2, { d: null }] } } },
  { name: 5, description: [], sync_filters: 'x', query: {} },
];

type Operation = { method: string; path: string; hasBody: boolean; params: string[] };

describe('robustness: malformed input never yields a 5xx', () => {
  let t: TestApp;
  let token: string;
  let operations: Operation[];
  let ids: Record<string, string>;

  beforeAll(async () => {
    // one token sends the whole barrage: the per-token budget (tested elsewhere) must not answer it with 429s
    t = await startTestApp({ env: { RATE_LIMIT_DEFAULT_PER_MINUTE: '1000000' } });
    token = await t.token('robust-co', ['http://127.0.0.1:9/cb']);
    const doc = (await (await fetch(`${t.url}/v1/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<string, { requestBody?: unknown; parameters?: Array<{ name: string; in: string }> }>
      >;
    };
    operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({
        method: method.toUpperCase(),
        path,
        hasBody: Boolean(op.requestBody),
        params: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
      })),
    );
    const ws = (await (
      await t.call(token, 'POST', '/v1/workspaces', { json: { name: 'r', description: 'r' } })
    ).json()) as { onna_id: string };
    const wal = (await (
      await t.call(token, 'POST', '/v1/wallet', {
        json: { name: 'w', credential_type_name: 'Datasource', config_type: 'conf' },
      })
    ).json()) as { onna_id: string };
    const col = (await (
      await t.call(token, 'POST', '/v1/collections', {
        json: { name: 'c', onna_parent_id: ws.onna_id, type: 'conf', credential_id: wal.onna_id },
      })
    ).json()) as { onna_id: string };
    ids = { ws: ws.onna_id, wal: wal.onna_id, col: col.onna_id };
    // a collection no request below targets: it must come out of the barrage untouched
    const ws2 = (await (
      await t.call(token, 'POST', '/v1/workspaces', { json: { name: 'keep', description: 'keep' } })
    ).json()) as { onna_id: string };
    const col2 = (await (
      await t.call(token, 'POST', '/v1/collections', {
        json: { name: 'keep', onna_parent_id: ws2.onna_id, type: 'conf', credential_id: wal.onna_id },
      })
    ).json()) as { onna_id: string };
    ids.keepWs = ws2.onna_id;
    ids.keepCol = col2.onna_id;
  });
  afterAll(() => t.close());

  function concrete(path: string, value: string): string {
    return path.replace(/\{type\}/g, 'conf').replace(/\{[a-z_]+\}/g, encodeURIComponent(value));
  }

  async function check(res: Response, what: string) {
    const text = await res.text();
    expect([what, res.status < 500]).toEqual([what, true]);
    expect(text).not.toMatch(/at \w+ \(.*\.ts:\d+/); // no stack trace
    if (res.status >= 400 && res.headers.get('content-type')?.includes('json') && !what.includes('/oauth/token')) {
      const body = JSON.parse(text);
      expect([what, body.code]).toEqual([what, expect.stringMatching(/^00\d{3}_[a-z_]+$/)]);
      expect(body.id).toBe(res.headers.get('x-correlation-id'));
    }
  }

  it('covers a meaningful part of the API', () => {
    expect(operations.length).toBeGreaterThanOrEqual(20);
  });

  it('survives nasty path ids on every operation', async () => {
    for (const op of operations) {
      for (const value of ['does-not-exist', 'x'.repeat(300), '..%2F..', ids.col, ids.ws]) {
        const path = concrete(op.path, value);
        const res = await t.call(token, op.method, path, op.hasBody ? { json: {} } : {});
        await check(res, `${op.method} ${path}`);
      }
    }
  });

  it('survives nasty query strings on every operation', async () => {
    for (const op of operations) {
      for (const value of NASTY_STRINGS) {
        const qs = new URLSearchParams(
          Object.fromEntries([...op.params, 'limit', 'cursor', 'offset'].map((p) => [p, value])),
        ).toString();
        const path = `${concrete(op.path, ids.col)}?${qs}`;
        const res = await t.call(token, op.method, path, op.hasBody ? { json: {} } : {});
        await check(res, `${op.method} ${path.slice(0, 120)}`);
      }
    }
  });

  it('survives nasty JSON bodies and content types on every operation with a body', async () => {
    for (const op of operations.filter((o) => o.hasBody)) {
      const path = concrete(op.path, ids.col);
      for (const body of NASTY_BODIES) {
        await check(
          await t.call(token, op.method, path, { json: body }),
          `${op.method} ${path} ${JSON.stringify(body)}`,
        );
      }
      for (const [type, raw] of [
        ['application/json', '{"unterminated": '],
        ['application/json', '\u0000\u0001'],
        ['text/plain', 'hello'],
        ['application/xml', '<a/>'],
        ['application/x-www-form-urlencoded', 'a=%zz&&='],
      ] as const) {
        const res = await fetch(`${t.url}${path}`, {
          method: op.method,
          headers: { authorization: `Bearer ${token}`, 'content-type': type },
          body: raw,
        });
        await check(res, `${op.method} ${path} as ${type}`);
      }
    }
    const huge = await fetch(`${t.url}/v1/workspaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x', description: 'y'.repeat(2 * 1024 * 1024) }),
    });
    await check(huge, 'POST /v1/workspaces 2 MiB body');
    expect(huge.status).toBe(413);
  });

  it('takes Content-Type: application/json with no body as no body; a route that needs one names it', async () => {
    const empty = (method: string, path: string) =>
      fetch(`${t.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      });
    const ws = (await (
      await t.call(token, 'POST', '/v1/workspaces', { json: { name: 'bodiless', description: 'd' } })
    ).json()) as { onna_id: string };
    expect((await empty('DELETE', `/v1/workspaces/${ws.onna_id}`)).status).toBe(204);
    const needsBody = await empty('POST', '/v1/workspaces');
    expect(needsBody.status).toBe(400);
    expect(((await needsBody.clone().json()) as { detail: string }).detail).toMatch(/body/);
    await check(needsBody, 'POST /v1/workspaces, JSON content type, no body');
  });

  it('keeps the data intact after the barrage', async () => {
    const col = (await (await t.call(token, 'GET', `/v1/collections/${ids.keepCol}`)).json()) as Record<
      string,
      unknown
    >;
    expect(col).toMatchObject({
      onna_id: ids.keepCol,
      onna_parent_id: ids.keepWs,
      credential_id: ids.wal,
      sync_status: 'created',
      sync_filters: null,
    });
  });
});
