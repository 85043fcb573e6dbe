import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newCollection, startTestApp, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';
import { errorShapeProblems, rawExchange } from '../support/raw-http.ts';

/**
 * Seeded raw-socket fuzz over every operation of the OpenAPI document: malformed ids, query strings, bodies,
 * framing and headers, with and without a token. Every answer must be below 500, in the error shape when it is
 * an error (the token endpoint's RFC 6749 answers aside), and every connection must get an answer and end.
 * Bounded: REQUESTS per store, CONCURRENCY at a time, short server timeouts so unfinished requests end fast.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const REQUESTS = 400;
const CONCURRENCY = 8;

/** mulberry32: small, seedable, good enough to pick cases. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)];
  return { next, pick, chance: (p: number) => next() < p };
}
type Rng = ReturnType<typeof prng>;

const NASTY_IDS = [
  '%00',
  'ws_%00x',
  '..%2F..%2Fetc%2Fpasswd',
  '../../etc/passwd',
  '%ZZ',
  '%',
  'x'.repeat(70),
  '%F0%9F%92%A9',
  '%ED%A0%80',
  "'%20OR%201=1--",
  '%0D%0AX:%20y',
  '-1',
  'null',
  '0',
  '%C0%AF',
];
const NASTY_VALUES = [
  'Infinity',
  '-Infinity',
  '1e400',
  'NaN',
  '-1',
  '0',
  '99999999999999999999',
  '%00',
  '',
  '%ZZ',
  'x'.repeat(600),
  'true',
  '[]',
  '%ED%A0%80',
  'a%00b',
];
// (HEAD answers carry no body to check the shape of)
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND', 'TRACE', 'get', 'BREW'];

function jsonValue(r: Rng, depth = 0): unknown {
  const kinds = depth > 3 ? 5 : 8;
  switch (Math.floor(r.next() * kinds)) {
    case 0:
      return r.pick(['', 'a\u0000b', '\ud800', 'x'.repeat(5000), '📁', '../..', 'conf', 'edrive', 'auto', 'ws_x']);
    case 1:
      return r.pick([0, -1, 1e308, 1.5, 2 ** 53 + 1, 123]);
    case 2:
      return r.pick([true, false, null]);
    case 3:
      return r.pick(['2026-01-01T00:00:00Z', 'not-a-date', '9999-99-99']);
    case 4:
      return [];
    case 5:
      return Array.from({ length: 1 + Math.floor(r.next() * 3) }, () => jsonValue(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (const k of [
        'name',
        'description',
        'type',
        'onna_parent_id',
        'credential_id',
        'filters',
        'sync_mode',
        r.pick(['\u0000', 'extra', '__proto__', 'constructor']),
      ]) {
        if (r.chance(0.5)) o[k] = jsonValue(r, depth + 1);
      }
      return o;
    }
  }
}

interface Operation {
  method: string;
  path: string;
  query: string[];
}

function operationsOf(doc: {
  paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string }> }>>;
}): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      ops.push({
        method: method.toUpperCase(),
        path,
        query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
      });
    }
  }
  return ops;
}

/** One malformed request for `op`, as raw parts (several parts: the body arrives in pieces). */
function request(r: Rng, op: Operation, ctx: { token: string; ids: string[] }): Array<string | Buffer> {
  const path = op.path.replace(/\{[^}]+\}/g, () => (r.chance(0.4) ? r.pick(ctx.ids) : r.pick(NASTY_IDS)));
  const params = [...op.query, ...(r.chance(0.3) ? ['limit', 'cursor', 'x'] : [])].filter(() => r.chance(0.7));
  const query = params.map((p) => `${p}=${r.pick(NASTY_VALUES)}`).join('&');
  const method = r.chance(0.85) ? op.method : r.pick(METHODS);
  const headers: string[] = [];
  if (r.chance(0.95)) headers.push('Host: fuzz');
  if (r.chance(0.75))
    headers.push(`Authorization: Bearer ${r.chance(0.9) ? ctx.token : r.pick(['x', '', 'a'.repeat(2000)])}`);
  if (r.chance(0.1)) headers.push('Host: second');
  if (r.chance(0.05)) headers.push(`X-Big: ${'h'.repeat(20000)}`);
  if (r.chance(0.1))
    headers.push(`X-Correlation-ID: ${r.pick(['short', 'fuzz-correlation-0001', 'bad id with spaces'])}`);
  if (r.chance(0.05))
    headers.push(r.pick(['Expect: 100-continue', 'Expect: nonsense', 'Upgrade: websocket\r\nConnection: Upgrade']));
  let body = '';
  const kind = r.pick(['none', 'json', 'json', 'form', 'garbage', 'short', 'chunked', 'badchunk', 'nolastchunk']);
  if (kind !== 'none') {
    body =
      kind === 'form'
        ? `name=${r.pick(NASTY_VALUES)}&grant_type=client_credentials&client_id=${r.pick(NASTY_VALUES)}`
        : kind === 'garbage'
          ? '{"name": "unterminated'
          : JSON.stringify(jsonValue(r));
    headers.push(
      `Content-Type: ${kind === 'form' ? 'application/x-www-form-urlencoded' : r.pick(['application/json', 'application/json', 'text/plain', 'application/json; charset=latin1', 'multipart/form-data'])}`,
    );
  }
  headers.push('Connection: close');
  const head = (extra: string[]) =>
    `${method} ${path}${query ? `?${query}` : ''} HTTP/1.1\r\n${[...headers, ...extra].join('\r\n')}\r\n\r\n`;
  switch (kind) {
    case 'none':
      return [head([])];
    case 'short':
      // shorter than its Content-Length: the body timeout answers
      return [head([`Content-Length: ${Buffer.byteLength(body) + 10}`]), body];
    case 'chunked':
      return [
        head(['Transfer-Encoding: chunked']),
        `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n`,
        '0\r\n\r\n',
      ];
    case 'badchunk':
      return [head(['Transfer-Encoding: chunked']), `zz\r\n${body}\r\n0\r\n\r\n`];
    case 'nolastchunk':
      return [head(['Transfer-Encoding: chunked']), `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n`];
    default:
      return [head([`Content-Length: ${Buffer.byteLength(body)}`]), body];
  }
}

describe.each(testDatabases)('raw-socket fuzz over every operation ($name)', (database) => {
  let t: TestApp;
  let token: string;
  let ids: string[];
  beforeAll(async () => {
    t = await startTestApp({
      database,
      workers: false,
      env: {
        HTTP_HEADERS_TIMEOUT_SECONDS: '1',
        HTTP_BODY_TIMEOUT_SECONDS: '1',
        HTTP_REQUEST_TIMEOUT_SECONDS: '2',
        RATE_LIMIT_DEFAULT_PER_MINUTE: '100000',
      },
    });
    token = await t.token('fuzz');
    const collection = await newCollection(t.call, token, 'conf', 'fuzz');
    const ws = (await (await t.call(token, 'GET', '/v1/workspaces')).json()) as { items: Array<{ onna_id: string }> };
    ids = [collection, ws.items[0].onna_id, 'conf', 'edrive', 'ws_000000000000000000000000'];
  });
  afterAll(() => t.close());

  it(`answers ${REQUESTS} malformed requests with no 5xx, the error shape, and no dropped or hung connection`, async () => {
    const doc = t.runtime.app.swagger() as unknown as Parameters<typeof operationsOf>[0];
    const ops = operationsOf(doc);
    expect(ops.length).toBeGreaterThan(20);
    const r = prng(SEED);
    const cases = Array.from({ length: REQUESTS }, (_, i) => {
      const op = ops[i % ops.length];
      return { op, parts: request(r, op, { token, ids }) };
    });
    const failures: string[] = [];
    let answered = 0;
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < cases.length) {
          const c = cases[next++];
          const ex = await rawExchange(t.url, c.parts, { waitMs: 6000 });
          const what = `${c.op.method} ${c.op.path}: ${JSON.stringify(String(c.parts[0]).slice(0, 160))}`;
          const res = ex.responses[0];
          if (!res) {
            failures.push(`${ex.ended === 'open' ? 'hung' : 'dropped'} (${ex.ended}): ${what}`);
            continue;
          }
          answered++;
          if (ex.ended === 'open') failures.push(`still open after its answer: ${what}`);
          if (res.status >= 500) failures.push(`${res.status} ${res.body.slice(0, 200)}: ${what}`);
          const oauth =
            c.op.path === '/v1/oauth/token' &&
            (res.status === 400 || res.status === 401) &&
            res.body.includes('"error"');
          if (res.status >= 400 && !oauth) {
            const problems = errorShapeProblems(res);
            if (problems.length)
              failures.push(`${res.status} not in the error shape (${problems.join('; ')}): ${what}`);
          }
        }
      }),
    );
    expect(failures.slice(0, 20)).toEqual([]);
    expect(answered).toBe(REQUESTS);
  }, 60_000);
});
