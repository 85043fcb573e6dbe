import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { localBudget } from '../../src/provider/budget-registry.ts';
import { ProviderHttp } from '../../src/provider/provider-http.ts';
import type { ProviderAuth, ProviderHttpOptions } from '../../src/provider/http-options.ts';
import { ProviderError } from '../../src/provider/provider-error.ts';
import type { RetryConfig } from '../../src/provider/retry.ts';
import { graphQuirks } from '../../src/connectors/onedrive/quirks.ts';
import { zoomQuirks } from '../../src/connectors/zoom/quirks.ts';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

const servers: { close(): Promise<void> }[] = [];

async function serve(handler: Handler): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const retry: RetryConfig = { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50, giveUpAfterMs: 5_000 };

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function client(extra: Partial<ProviderHttpOptions> = {}) {
  const warnings: { obj: object; msg: string }[] = [];
  const http = new ProviderHttp({
    budget: localBudget({ ratePerSecond: 1000, concurrency: 10 }),
    retry,
    userAgent: 'NONISV|Custody|custody/test',
    quirks: graphQuirks,
    log: { warn: (obj, msg) => warnings.push({ obj, msg }) },
    ...extra,
  });
  return { http, warnings };
}

function staticAuth(initial: string, refreshed: string) {
  const calls: string[] = [];
  const auth: ProviderAuth = {
    token: async () => initial,
    refresh: async (rejected) => {
      calls.push(rejected);
      return refreshed;
    },
  };
  return { auth, calls };
}

describe('ProviderHttp retries', () => {
  it('retries a 503 after its fractional Retry-After and returns the JSON of the success', async () => {
    const arrivals: number[] = [];
    const base = await serve((req, res) => {
      arrivals.push(Date.now());
      if (arrivals.length === 1)
        return json(res, 503, { error: { code: 'serviceNotAvailable', message: 'busy' } }, { 'retry-after': '0.05' });
      json(res, 200, { value: [1, 2], ua: req.headers['user-agent'] });
    });
    const { http, warnings } = client();
    const out = await http.json<{ value: number[]; ua: string }>(`${base}/v1.0/users`);
    expect(out).toEqual({ value: [1, 2], ua: 'NONISV|Custody|custody/test' });
    expect(arrivals).toHaveLength(2);
    expect(arrivals[1] - arrivals[0]).toBeGreaterThanOrEqual(45);
    expect(warnings).toHaveLength(1);
    expect(warnings[0].msg).toContain('HTTP 503');
    expect(warnings[0].obj).toMatchObject({ status: 503, providerCode: 'serviceNotAvailable', waitMs: 50 });
  });

  it('gives up after maxAttempts with a retryable ProviderError that says why', async () => {
    let calls = 0;
    const base = await serve((_req, res) => {
      calls += 1;
      res.writeHead(503).end();
    });
    const { http } = client();
    const error = await http.json(`${base}/x`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ code: 'http_error', status: 503, retryable: true });
    expect((error as Error).message).toContain('gave up after 3 attempts: HTTP 503');
    expect(calls).toBe(3);
  });

  it('retries when the connection is reset before a response', async () => {
    let calls = 0;
    const base = await serve((req, res) => {
      calls += 1;
      if (calls === 1) return req.socket.destroy();
      json(res, 200, { ok: true });
    });
    const { http, warnings } = client();
    expect(await http.json(`${base}/x`)).toEqual({ ok: true });
    expect(calls).toBe(2);
    expect(warnings[0].obj).toHaveProperty('code');
  });

  it('does not retry a 404 and exposes the provider code', async () => {
    let calls = 0;
    const base = await serve((_req, res) => {
      calls += 1;
      json(res, 404, { code: 1001, message: 'User does not exist: someone@example.com' });
    });
    const error = (await client({ quirks: zoomQuirks })
      .http.json(`${base}/v2/users/x`)
      .catch((e: unknown) => e)) as ProviderError;
    expect(error).toMatchObject({ code: 'http_error', status: 404, providerCode: 1001, retryable: false });
    expect(error.message).toBe(
      `GET ${base}/v2/users/x failed: HTTP 404 is not retryable (provider said: User does not exist: someone@example.com)`,
    );
    expect(calls).toBe(1);
  });

  it('a 429 pauses every request of the credential for the Retry-After, not only the refused one', async () => {
    let first429At = 0;
    const arrivals: { path: string; at: number }[] = [];
    const base = await serve((req, res) => {
      arrivals.push({ path: req.url!, at: Date.now() });
      if (req.url === '/a' && first429At === 0) {
        first429At = Date.now();
        return json(
          res,
          429,
          { code: 429, message: 'You have reached the maximum per-second rate limit for this API. Try again later.' },
          { 'retry-after': '0.3' },
        );
      }
      json(res, 200, { path: req.url });
    });
    let onWarn: () => void = () => {};
    const warned = new Promise<void>((resolve) => (onWarn = resolve));
    const { http } = client({ log: { warn: () => onWarn() } });
    const a = http.json(`${base}/a`);
    await warned;
    const others = await Promise.all([http.json(`${base}/b`), http.json(`${base}/c`)]);
    expect(others).toEqual([{ path: '/b' }, { path: '/c' }]);
    expect(await a).toEqual({ path: '/a' });
    const after = arrivals.filter((x) => x.at > first429At || x.path !== '/a');
    expect(after.map((x) => x.path).sort()).toEqual(['/a', '/b', '/c']);
    for (const x of after) expect(x.at - first429At).toBeGreaterThanOrEqual(280);
  });
});

/** Zoom's users list that takes one bearer token and refuses any other with 401 (code 124); `seen`: what each sent. */
async function acceptingOnly(token: string) {
  const seen: (string | undefined)[] = [];
  const base = await serve((req, res) => {
    seen.push(req.headers.authorization);
    if (req.headers.authorization !== `Bearer ${token}`)
      return json(res, 401, { code: 124, message: 'Invalid access token.' });
    json(res, 200, { users: [] });
  });
  return { seen, base };
}

describe('ProviderHttp auth', () => {
  it('refreshes once after a 401 with the rejected token, then succeeds with the new one', async () => {
    const { seen, base } = await acceptingOnly('tok-new');
    const { auth, calls } = staticAuth('tok-old', 'tok-new');
    const { http } = client({ auth });
    expect(await http.json(`${base}/v2/users`)).toEqual({ users: [] });
    expect(calls).toEqual(['tok-old']);
    expect(seen).toEqual(['Bearer tok-old', 'Bearer tok-new']);
  });

  it('sends the token a refresh stored while the request waited for its budget slot, without a refused request', async () => {
    const { seen, base } = await acceptingOnly('tok-new');
    let held: string | undefined = 'tok-old';
    const { auth, calls } = staticAuth('tok-old', 'tok-new');
    const inner = localBudget({ ratePerSecond: 1000, concurrency: 10 });
    // another request's refresh lands while this one waits for its slot
    const budget = Object.assign(Object.create(inner) as typeof inner, {
      acquire: (cost: number, signal?: AbortSignal) => {
        held = 'tok-new';
        return inner.acquire(cost, signal);
      },
    });
    const { http } = client({ auth: { ...auth, current: () => held }, budget });
    expect(await http.json(`${base}/v2/users`)).toEqual({ users: [] });
    expect(seen).toEqual(['Bearer tok-new']);
    expect(calls).toEqual([]);
    // a token about to expire is not offered: the request goes with the one it read, and the refusal refreshes it
    seen.length = 0;
    held = undefined;
    const { http: plain } = client({ auth: { ...auth, current: () => undefined } });
    expect(await plain.json(`${base}/v2/users`)).toEqual({ users: [] });
    expect(seen).toEqual(['Bearer tok-old', 'Bearer tok-new']);
    expect(calls).toEqual(['tok-old']);
    // a cache set back to the refused token (a slow read stored it after the refresh) is not swapped in again
    seen.length = 0;
    const { http: stale } = client({ auth: { ...auth, current: () => 'tok-old' } });
    expect(await stale.json(`${base}/v2/users`)).toEqual({ users: [] });
    expect(seen).toEqual(['Bearer tok-old', 'Bearer tok-new']);
  });

  it('fails with auth_rejected when the refreshed token is refused too, without a second refresh or the token in the message', async () => {
    const base = await serve((req, res) =>
      json(res, 401, {
        error: { code: 'InvalidAuthenticationToken', message: `Token ${req.headers.authorization} is expired` },
      }),
    );
    const { auth, calls } = staticAuth('tok-old-secret', 'tok-new-secret');
    const error = (await client({ auth })
      .http.json(`${base}/v1.0/me`)
      .catch((e: unknown) => e)) as ProviderError;
    expect(error).toMatchObject({
      code: 'auth_rejected',
      status: 401,
      providerCode: 'InvalidAuthenticationToken',
      retryable: false,
    });
    expect(calls).toEqual(['tok-old-secret']);
    expect(error.message).not.toContain('tok-new-secret');
    expect(error.message).not.toContain('tok-old-secret');
    expect(error.message).toContain('[redacted]');
  });

  it('keeps tokens and pre-signed query strings out of error messages', async () => {
    const base = await serve((req, res) =>
      json(res, 403, {
        error: { code: 'accessDenied', message: `caller ${req.headers.authorization} may not read this` },
      }),
    );
    const { auth } = staticAuth('tok-secret-123', 'unused');
    const error = (await client({ auth })
      .http.json(`${base}/v1.0/drives/d/items/i?tempauth=presigned-secret`)
      .catch((e: unknown) => e)) as ProviderError;
    expect(error).toMatchObject({ status: 403, providerCode: 'accessDenied', retryable: false });
    expect(error.message).not.toContain('tok-secret-123');
    expect(error.message).not.toContain('presigned-secret');
    expect(error.message).toContain('caller Bearer [redacted] may not read this');
    // The body is kept for diagnostics and ends up in logs: the echoed token must be gone from it too.
    expect(JSON.stringify(error.body)).not.toContain('tok-secret-123');
    expect(error.body).toEqual({
      error: { code: 'accessDenied', message: 'caller Bearer [redacted] may not read this' },
    });
  });

  it('posts a form without the bearer token when auth is false', async () => {
    let got: { auth?: string; type?: string; body?: string } = {};
    const base = await serve((req, res, body) => {
      got = { auth: req.headers.authorization, type: req.headers['content-type'], body };
      json(res, 200, { access_token: 'x', expires_in: 3599 });
    });
    const { auth } = staticAuth('tok', 'tok2');
    const out = await client({ auth }).http.json(`${base}/oauth/token`, {
      method: 'post',
      form: { grant_type: 'account_credentials', account_id: 'acc 1' },
      headers: { Authorization: 'Basic Y2xpZW50OnNlY3JldA==' },
      auth: false,
    });
    expect(out).toEqual({ access_token: 'x', expires_in: 3599 });
    expect(got).toEqual({
      auth: 'Basic Y2xpZW50OnNlY3JldA==',
      type: 'application/x-www-form-urlencoded',
      body: 'grant_type=account_credentials&account_id=acc+1',
    });
  });
});

describe('ProviderHttp downloads', () => {
  it('follows a cross-origin 302 without Authorization, keeps Range, and reports the final URL', async () => {
    const fileHost: { headers?: IncomingMessage['headers']; url?: string } = {};
    const files = await serve((req, res) => {
      fileHost.headers = req.headers;
      fileHost.url = req.url;
      res.writeHead(206, { 'content-type': 'video/mp4', 'content-range': 'bytes 5-9/10' });
      res.end('56789');
    });
    const apiAuth: (string | undefined)[] = [];
    const api = await serve((req, res) => {
      apiAuth.push(req.headers.authorization);
      if (req.url === '/old') return res.writeHead(301, { location: '/rec/download/abc' }).end();
      res.writeHead(302, { location: `${files}/file?tempauth=xyz` }).end();
    });
    const { auth } = staticAuth('tok-zoom', 'unused');
    const { http } = client({ auth });
    const out = await http.stream(`${api}/old`, { range: { start: 5 }, headers: { Cookie: 'a=b' } });
    const chunks: Buffer[] = [];
    for await (const c of out.body) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('56789');
    expect(out.status).toBe(206);
    expect(out.headers['content-range']).toBe('bytes 5-9/10');
    expect(out.finalUrl).toBe(`${files}/file?tempauth=xyz`);
    expect(apiAuth).toEqual(['Bearer tok-zoom', 'Bearer tok-zoom']);
    expect(fileHost.url).toBe('/file?tempauth=xyz');
    expect(fileHost.headers?.authorization).toBeUndefined();
    expect(fileHost.headers?.cookie).toBeUndefined();
    expect(fileHost.headers?.range).toBe('bytes=5-');
  });

  it('does not refresh the token on a 401 from the download host (an expired pre-signed URL)', async () => {
    const files = await serve((_req, res) => res.writeHead(401).end());
    const api = await serve((_req, res) => res.writeHead(302, { location: `${files}/f` }).end());
    const { auth, calls } = staticAuth('tok', 'tok2');
    const error = await client({ auth })
      .http.stream(`${api}/content`)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'http_error', status: 401, retryable: false });
    expect(calls).toEqual([]);
  });

  it('holds the budget slot until the download stream closes', async () => {
    const order: string[] = [];
    const base = await serve((req, res) => {
      order.push(req.url!);
      if (req.url === '/big') {
        res.writeHead(200);
        res.write('part');
        setTimeout(() => res.end('rest'), 100);
        return;
      }
      json(res, 200, {});
    });
    const { http } = client({ budget: localBudget({ ratePerSecond: 1000, concurrency: 1 }) });
    const download = await http.stream(`${base}/big`);
    const small = http.json(`${base}/small`);
    await new Promise((r) => setTimeout(r, 30));
    expect(order).toEqual(['/big']);
    for await (const _ of download.body) void _;
    await small;
    expect(order).toEqual(['/big', '/small']);
  });

  it('aborts a request that hangs, with an aborted ProviderError', async () => {
    const base = await serve(() => {});
    const ac = new AbortController();
    const pending = client()
      .http.json(`${base}/hang`, { signal: ac.signal })
      .catch((e: unknown) => e);
    setTimeout(() => ac.abort(), 30);
    expect(await pending).toMatchObject({ code: 'aborted', retryable: false });
  });

  it('reads at most 64 KiB of an error body', async () => {
    const base = await serve((_req, res) => {
      res.writeHead(400, { 'content-type': 'text/html' });
      res.end('x'.repeat(500_000));
    });
    const error = (await client()
      .http.json(`${base}/x`)
      .catch((e: unknown) => e)) as ProviderError;
    expect(error.status).toBe(400);
    expect(typeof error.body).toBe('string');
    expect((error.body as string).length).toBe(64 * 1024);
  });
});
