import { describe, expect, it } from 'vitest';
import { firstPage, pages, type Query, type ZoomApi } from '../../src/connectors/zoom/api.ts';
import { ProviderError } from '../../src/provider/provider-error.ts';
import type { ZoomPage } from '../../src/connectors/zoom/wire.ts';

interface Page extends ZoomPage {
  items: string[];
}

const MINUTE = 60_000;

/** A two-page listing whose next_page_token lives 15 minutes from when it was issued, as Zoom's does. */
function twoPages(clock: { now: number }) {
  const asked: Array<string | undefined> = [];
  const issued = new Map<string, number>();
  const get = async (_path: string, query: Query): Promise<Page> => {
    const token = query.next_page_token as string | undefined;
    asked.push(token);
    if (token === undefined) {
      const next = `t${issued.size}`;
      issued.set(next, clock.now);
      return { items: ['a', 'b'], next_page_token: next };
    }
    if (clock.now - issued.get(token)! >= 15 * MINUTE)
      throw new ProviderError('The next page token is either invalid or has expired.', {
        code: 'http_error',
        retryable: false,
        status: 400,
        providerCode: '300',
      });
    return { items: ['c'], next_page_token: '' };
  };
  return { asked, api: { get } as unknown as ZoomApi };
}

describe('zoom: a first page asked for ahead of its turn', () => {
  it('marks its next page with when Zoom issued the token, and does not send a token that expired while it waited', async () => {
    const clock = { now: Date.UTC(2026, 10, 1) };
    const zoom = twoPages(clock);
    const first = firstPage<Page>(zoom.api, 'listing', '/x', {}, () => clock.now);
    await first;
    // The window before it took 20 minutes to hand over.
    clock.now += 20 * MINUTE;
    const seen: string[] = [];
    const marks: Array<number | undefined> = [];
    for await (const { page, next } of pages<Page>(zoom.api, 'listing', '/x', {}, null, () => clock.now, first)) {
      seen.push(...page.items);
      marks.push(next?.at);
    }
    // Every item once, and no request with a token Zoom had already let expire.
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(zoom.asked).toEqual([undefined, undefined, 't1']);
    expect(marks).toEqual([clock.now, undefined]);
  });

  it('uses a first page asked for ahead while its token is young, and keeps the time Zoom issued it', async () => {
    const start = Date.UTC(2026, 10, 1);
    const clock = { now: start };
    const zoom = twoPages(clock);
    const first = firstPage<Page>(zoom.api, 'listing', '/x', {}, () => clock.now);
    await first;
    clock.now += 10 * MINUTE;
    const marks: Array<number | undefined> = [];
    for await (const { next } of pages<Page>(zoom.api, 'listing', '/x', {}, null, () => clock.now, first))
      marks.push(next?.at);
    expect(zoom.asked).toEqual([undefined, 't0']);
    // A checkpoint taken now says the token is 10 minutes old: a run resumed 5 minutes later does not try it.
    expect(marks).toEqual([start, undefined]);
  });
});
