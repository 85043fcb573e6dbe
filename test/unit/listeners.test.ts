import { getEventListeners } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphQuirks } from '../../src/connectors/onedrive/quirks.ts';
import { ProviderHttp } from '../../src/provider/provider-http.ts';
import { localBudget } from '../../src/provider/budget-registry.ts';
import { createDispatcher } from '../../src/webhooks/dispatcher.ts';

/** Listeners added to a signal that outlives one request are gone when that request ends (issue 19). */
describe('no listeners left on long-lived signals', () => {
  let url: string;
  let served = 0;
  const server = createServer((req, res) => {
    served += 1;
    // every third answer is a 503 with Retry-After 0, every fifth a redirect: retries and hops included
    if (served % 3 === 0) return void res.writeHead(503, { 'retry-after': '0' }).end('busy');
    if (served % 5 === 0 && !req.url?.startsWith('/final'))
      return void res.writeHead(302, { location: '/final' }).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('keeps the abort listeners of a client-wide signal flat over many requests, streams and retries', async () => {
    const controller = new AbortController();
    const http = new ProviderHttp({
      budget: localBudget({ ratePerSecond: 10_000, concurrency: 4 }),
      retry: { maxAttempts: 5, baseDelayMs: 1, maxDelayMs: 2, giveUpAfterMs: 10_000 },
      userAgent: 'test',
      quirks: graphQuirks,
      signal: controller.signal,
    });
    const before = getEventListeners(controller.signal, 'abort').length;
    for (let i = 0; i < 40; i++) {
      const call = new AbortController();
      await http.json(`${url}/item/${i}`, { signal: call.signal });
      const res = await http.stream(`${url}/content/${i}`, { signal: call.signal });
      for await (const _chunk of res.body) void _chunk;
      expect(getEventListeners(call.signal, 'abort').length).toBe(0);
    }
    expect(getEventListeners(controller.signal, 'abort').length).toBe(before);
  });

  it("keeps the webhook dispatcher's stop signal flat over many passes", async () => {
    let passes = 0;
    const stop = new AbortController();
    let signalSeen: AbortSignal | undefined;
    const dispatcher = createDispatcher({
      webhooks: {
        cursor: async () => {
          passes += 1;
          return 0;
        },
      },
      events: { headersAfter: async () => [] },
      sender: { close: async () => undefined },
      log: { warn: () => undefined, info: () => undefined },
      pollMs: 1,
      sleep: undefined,
    } as never);
    // the dispatcher's own sleep with its own stop signal: watch the signal through addEventListener
    const original = AbortSignal.prototype.addEventListener;
    AbortSignal.prototype.addEventListener = function (
      this: AbortSignal,
      ...args: Parameters<AbortSignal['addEventListener']>
    ) {
      // eslint-disable-next-line @typescript-eslint/no-this-alias -- records the receiver the code under test used
      signalSeen ??= this;
      return original.apply(this, args);
    };
    try {
      dispatcher.start();
      while (passes < 30) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(signalSeen).toBeDefined();
      expect(getEventListeners(signalSeen!, 'abort').length).toBeLessThanOrEqual(1);
    } finally {
      AbortSignal.prototype.addEventListener = original;
      await dispatcher.stop();
      stop.abort();
    }
  });
});
