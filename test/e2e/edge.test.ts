import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOf, newCollection, startTestApp, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';
import { errorShapeProblems, rawExchange, type RawResponse } from '../support/raw-http.ts';

/** The reproductions, each on every store. */
describe.each(testDatabases)('the HTTP edge ($name)', (database) => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp({ database, workers: false });
    token = await t.token('edge');
  });
  afterAll(() => t.close());

  async function refused(res: Response, status: number, pointer: string) {
    const body = await jsonOf(res);
    expect({ status: res.status, pointer: body.source?.pointer }).toEqual({ status, pointer });
    expect(body.id).toBe(res.headers.get('x-correlation-id'));
    return body;
  }

  it('refuses NUL and unpaired surrogates in ids, bodies, cursors and redirect_to with a 400 naming the field', async () => {
    const wsId = (
      await jsonOf(await t.call(token, 'POST', '/v1/workspaces', { json: { name: 'w', description: 'd' } }), 201)
    ).onna_id;
    await refused(await t.call(token, 'GET', '/v1/workspaces/ws_%00'), 400, '/params/id');
    await refused(
      await t.call(token, 'POST', '/v1/workspaces', { json: { name: 'a\u0000b', description: 'd' } }),
      400,
      '/body/name',
    );
    await refused(
      await t.call(token, 'POST', '/v1/workspaces', { json: { name: 'a\ud800b', description: 'd' } }),
      400,
      '/body/name',
    );
    await refused(await t.call(token, 'GET', '/v1/workspaces?cursor=%00'), 400, '/querystring/cursor');
    await refused(
      await t.call(token, 'GET', `/v1/workspaces/${wsId}/collections?cursor=x%00y`),
      400,
      '/querystring/cursor',
    );
    // a cursor whose decoded text holds a NUL: the query string itself is clean
    const decodesToNul = Buffer.from(JSON.stringify(['\u0000', 'x'])).toString('base64url');
    await refused(await t.call(token, 'GET', `/v1/workspaces?cursor=${decodesToNul}`), 400, '/querystring/cursor');
    await refused(
      await t.call(token, 'GET', `/v1/workspaces/${wsId}/collections?cursor=${decodesToNul}`),
      400,
      '/querystring/cursor',
    );
    await refused(
      await t.call(
        token,
        'GET',
        `/v1/collections/authorization_url/conf?redirect_to=${encodeURIComponent('https://x.test/\u0000')}`,
      ),
      400,
      '/querystring/redirect_to',
    );
    // a paired surrogate (an emoji) is ordinary text
    expect(
      (await t.call(token, 'POST', '/v1/workspaces', { json: { name: 'evidence 📁', description: 'd' } })).status,
    ).toBe(201);
  });

  it('answers the token endpoint in RFC 6749 form for a NUL client_id, without credentials', async () => {
    const res = await t.call(null, 'POST', '/v1/oauth/token', {
      form: { grant_type: 'client_credentials', client_id: '\u0000', client_secret: 'x' },
    });
    expect(res.status).toBe(400);
    const body = await jsonOf(res);
    expect(body.error).toBe('invalid_request');
    expect(body.error_description).toMatch(/client_id/);
  });

  it('takes only finite whole numbers in range for numeric query parameters', async () => {
    for (const limit of ['Infinity', '-Infinity', '1e400', '1e2', '0x10', '5.5', '0', '201', '-1']) {
      await refused(
        await t.call(token, 'GET', `/v1/workspaces?limit=${encodeURIComponent(limit)}`),
        400,
        '/querystring/limit',
      );
    }
    expect((await t.call(token, 'GET', '/v1/workspaces?limit=200')).status).toBe(200);
  });

  it('does not coerce JSON bodies (query strings still are)', async () => {
    const body = await refused(
      await t.call(token, 'POST', '/v1/workspaces', { json: { name: 123, description: 'd' } }),
      400,
      '/body/name',
    );
    expect(body.detail).toMatch(/name/);
    await refused(
      await t.call(token, 'POST', '/v1/workspaces', { json: { name: ['a'], description: 'd' } }),
      400,
      '/body/name',
    );
    const col = await newCollection(t.call, token, 'conf', 'coerce');
    await refused(await t.call(token, 'PATCH', `/v1/collections/${col}`, { json: { name: true } }), 400, '/body/name');
    const page = await jsonOf(await t.call(token, 'GET', '/v1/workspaces?limit=1'), 200);
    expect(page.items).toHaveLength(1);
  });
});

describe('answers below the routes', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp({ workers: false });
    token = await t.token('edge-raw');
  });
  afterAll(() => t.close());

  function shaped(res: RawResponse | undefined, status: number) {
    expect(res?.status).toBe(status);
    expect(errorShapeProblems(res!)).toEqual([]);
  }

  it('gives Node-level refusals the error shape and a correlation id: missing Host, bad Expect, CONNECT, garbage', async () => {
    const noHost = await rawExchange(t.url, ['GET /healthz HTTP/1.1\r\n\r\n']);
    shaped(noHost.responses[0], 400);
    // On a route whose 400 has a schema of its own (the token endpoint's RFC 6749 body), too.
    const noHostToken = await rawExchange(t.url, [
      'POST /v1/oauth/token HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
    ]);
    shaped(noHostToken.responses[0], 400);
    const expect417 = await rawExchange(t.url, ['GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\n\r\n']);
    shaped(expect417.responses[0], 417);
    const connect = await rawExchange(t.url, ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n']);
    shaped(connect.responses[0], 405);
    for (const bad of [
      'THIS IS NOT HTTP\r\n\r\n',
      'POST /v1/workspaces HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n',
      'POST /v1/workspaces HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n',
      'POST /v1/workspaces HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nab',
    ]) {
      const ex = await rawExchange(t.url, [bad]);
      shaped(ex.responses[0], 400);
      expect(ex.ended).toBe('closed');
    }
  });

  it('answers a transfer coding other than chunked with 501 and closes, however the codings are listed', async () => {
    const auth = `Authorization: Bearer ${token}\r\nContent-Type: application/json\r\n`;
    const body = '{"name":"gz","description":"d"}';
    const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    for (const codings of [
      'Transfer-Encoding: gzip, chunked',
      'Transfer-Encoding: x-foo, chunked',
      'Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked',
    ]) {
      const ex = await rawExchange(t.url, [
        `POST /v1/workspaces HTTP/1.1\r\nHost: x\r\n${auth}${codings}\r\n\r\n${chunked}`,
      ]);
      shaped(ex.responses[0], 501);
      expect(ex.ended, codings).toBe('closed');
    }
    const plain = await rawExchange(t.url, [
      `POST /v1/workspaces HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${auth}Transfer-Encoding: chunked\r\n\r\n${chunked}`,
    ]);
    expect(plain.responses[0]?.status).toBe(201);
  });

  it('refuses a request with two Host headers or one that is not a host', async () => {
    for (const host of ['Host: a\r\nHost: b', 'Host: a b', 'Host: a/b']) {
      const ex = await rawExchange(t.url, [
        `GET /v1/workspaces HTTP/1.1\r\n${host}\r\nAuthorization: Bearer ${token}\r\n\r\n`,
      ]);
      shaped(ex.responses[0], 400);
    }
    for (const host of ['Host: 127.0.0.1:8080', 'Host: [::1]:8080', 'Host: custody.example']) {
      const ex = await rawExchange(t.url, [`GET /healthz HTTP/1.1\r\n${host}\r\nConnection: close\r\n\r\n`]);
      expect(ex.responses[0]?.status, host).toBe(200);
    }
  });

  it('keeps the answer of a request pipelined before a CONNECT, and closes after a request asking for an upgrade', async () => {
    const authed = `GET /v1/workspaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`;
    const connect = await rawExchange(t.url, [`${authed}CONNECT a:1 HTTP/1.1\r\nHost: a\r\n\r\n`]);
    expect(connect.responses.map((r) => r.status)).toEqual([200, 405]);
    expect(errorShapeProblems(connect.responses[1])).toEqual([]);
    // Node gives the bytes after an Upgrade request to an upgrade that never happens: the client must learn at once
    const upgrade = `GET /v1/workspaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`;
    const ex = await rawExchange(t.url, [`${upgrade}${authed}`], { waitMs: 5000 });
    expect(ex.responses[0]?.status).toBe(200);
    expect(ex.responses[0]?.headers.connection).toBe('close');
    expect(ex.ended).toBe('closed');
  });

  it('answers a request for no route at once, without reading its body', async () => {
    const ex = await rawExchange(
      t.url,
      ['POST /v1/nope HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{'],
      { waitMs: 5000 },
    );
    shaped(ex.responses[0], 404);
    expect(ex.responses[0].headers.connection).toBe('close');
    expect(ex.ended).toBe('closed');
  });

  it('sends 100 Continue only to a request that passed its checks', async () => {
    const expect100 = 'Expect: 100-continue\r\nContent-Type: application/json\r\n';
    const anonymous = await rawExchange(t.url, [
      `POST /v1/workspaces HTTP/1.1\r\nHost: x\r\n${expect100}Content-Length: 50000000\r\n\r\n`,
    ]);
    expect(anonymous.responses.map((r) => r.status)).toEqual([401]);
    expect(anonymous.raw).not.toMatch(/^HTTP\/1\.1 100/m);
    const auth = `Authorization: Bearer ${token}\r\n`;
    const tooBig = await rawExchange(t.url, [
      `POST /v1/workspaces HTTP/1.1\r\nHost: x\r\n${auth}${expect100}Content-Length: 50000000\r\n\r\n`,
    ]);
    expect(tooBig.responses.map((r) => r.status)).toEqual([413]);
    expect(tooBig.raw).not.toMatch(/^HTTP\/1\.1 100/m);
    const body = '{"name":"continued","description":"d"}';
    const fits = await rawExchange(
      t.url,
      [
        `POST /v1/workspaces HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${auth}${expect100}Content-Length: ${body.length}\r\n\r\n`,
        body,
      ],
      { gapMs: 300 },
    );
    expect(fits.raw).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
    expect(fits.responses.map((r) => r.status)).toEqual([201]);
  });

  it('takes JSON bodies in UTF-8 only, and names a forbidden prototype key as such', async () => {
    const post = (contentType: string, body: Buffer) =>
      rawExchange(t.url, [
        Buffer.concat([
          Buffer.from(
            `POST /v1/workspaces HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${token}\r\nContent-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n\r\n`,
          ),
          body,
        ]),
      ]);
    const cafe = Buffer.from('{"name":"caf\xe9","description":"d"}', 'latin1');
    shaped((await post('application/json; charset=latin1', cafe)).responses[0], 415);
    shaped((await post('application/json', cafe)).responses[0], 400);
    shaped(
      (await post('application/json', Buffer.from('{"name":"\xed\xa0\x80","description":"d"}', 'latin1'))).responses[0],
      400,
    );
    const proto = (await post('application/json', Buffer.from('{"name":"a","description":"d","__proto__":{}}')))
      .responses[0];
    shaped(proto, 400);
    expect(JSON.parse(proto.body).detail).toMatch(/__proto__/);
    expect(
      (await post('application/json; charset=UTF-8', Buffer.from('{"name":"café","description":"d"}'))).responses[0]
        ?.status,
    ).toBe(201);
  });

  it('keeps the answer of a valid pipelined request and answers the garbage after it', async () => {
    const ex = await rawExchange(t.url, [`GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE GARBAGE\r\n\r\n`]);
    expect(ex.responses.map((r) => r.status)).toEqual([200, 400]);
    expect(errorShapeProblems(ex.responses[1])).toEqual([]);
    const authed = `GET /v1/workspaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`;
    const badChunk = `POST /v1/workspaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nQQ\r\n`;
    const two = await rawExchange(t.url, [`${authed}${authed}${badChunk}`]);
    expect(two.responses.map((r) => r.status)).toEqual([200, 200, 400]);
  });

  it('does not read the body of an unauthenticated request: 401, then a clean close', async () => {
    const head =
      'POST /v1/workspaces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1073741824\r\n\r\n';
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    const ex = await rawExchange(t.url, [head, ...Array.from({ length: 256 }, () => chunk)], { waitMs: 8000 });
    shaped(ex.responses[0], 401);
    expect(ex.responses[0].headers.connection).toBe('close');
    expect(ex.ended).not.toBe('open');
    // kernel buffers on both sides hold a few MiB; the server itself stops after its linger bound
    expect(ex.written).toBeLessThan(64 * 1024 * 1024);
  });

  it('writes 413 before closing cleanly when a body is over the route limit, however it is sent, and reads no more of it', async () => {
    const auth = `Authorization: Bearer ${token}\r\n`;
    const mib = Buffer.alloc(1024 * 1024, 0x61);
    const declared = await rawExchange(
      t.url,
      [
        `POST /v1/workspaces HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${1024 * mib.length}\r\n\r\n`,
        ...Array.from({ length: 256 }, () => mib),
      ],
      { waitMs: 8000 },
    );
    shaped(declared.responses[0], 413);
    expect(declared.responses[0].headers.connection).toBe('close');
    expect(declared.ended).toBe('closed');
    expect(declared.written).toBeLessThan(64 * mib.length);
    const chunked = await rawExchange(
      t.url,
      [
        `POST /v1/workspaces HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
        ...Array.from({ length: 256 }, () =>
          Buffer.concat([Buffer.from(`${mib.length.toString(16)}\r\n`), mib, Buffer.from('\r\n')]),
        ),
      ],
      { waitMs: 8000 },
    );
    shaped(chunked.responses[0], 413);
    expect(chunked.ended).toBe('closed');
    expect(chunked.written).toBeLessThan(64 * mib.length);
  });

  it('keeps the token endpoint and the provider event intake to small explicit limits', async () => {
    const form = `grant_type=client_credentials&client_id=${'x'.repeat(9000)}`;
    const ex = await rawExchange(t.url, [
      `POST /v1/oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${form.length}\r\n\r\n${form}`,
    ]);
    shaped(ex.responses[0], 413);
    const { BODY_LIMITS, DEFAULT_BODY_LIMIT } = await import('../../src/http/body-limits.ts');
    for (const route of ['POST /v1/oauth/token', 'POST /v1/webhooks/zoom', 'POST /v1/webhooks/microsoft']) {
      expect(BODY_LIMITS[route]).toBeLessThanOrEqual(512 * 1024);
    }
    expect(DEFAULT_BODY_LIMIT).toBe(1024 * 1024);
    // the "Request limits" table of docs/api.md is this table
    const readme = fs.readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    const documented = Object.fromEntries(
      [...readme.matchAll(/^\| `([A-Z]+ \/[^`]+)` \| (\d+) (KiB|MiB) \|$/gm)].map((m) => [
        m[1],
        Number(m[2]) * (m[3] === 'MiB' ? 1024 * 1024 : 1024),
      ]),
    );
    expect(documented).toEqual(BODY_LIMITS);
  });
});
