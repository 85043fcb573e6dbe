import { describe, expect, it } from 'vitest';
import { ZoomApi } from '../../src/connectors/zoom/api.ts';
import { resolveOwners } from '../../src/connectors/zoom/owners.ts';
import type { ProviderHttp } from '../../src/provider/provider-http.ts';

const all = { all_selected: true, selected: [], excluded: [{ id: 'u-excluded' }] };

describe("a run's owners (all selected)", () => {
  it('lists active and deactivated users at once, every page of each, excluded ones left out, in id order', async () => {
    // Zoom's GET /users: one status per listing, next_page_token paging. Two pages of active users, one of inactive.
    const pages: Record<string, { users: Array<{ id: string; email: string }>; next_page_token: string }> = {
      'active:': {
        users: [
          { id: 'u-c', email: 'c@x' },
          { id: 'u-excluded', email: 'e@x' },
        ],
        next_page_token: 'p2',
      },
      'active:p2': { users: [{ id: 'u-a', email: 'a@x' }], next_page_token: '' },
      'inactive:': { users: [{ id: 'u-b', email: 'b@x' }], next_page_token: '' },
    };
    let inFlight = 0;
    let peak = 0;
    const http = {
      json: async (url: string) => {
        const q = new URL(url).searchParams;
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight--;
        const page = pages[`${q.get('status')}:${q.get('next_page_token') ?? ''}`];
        if (!page) throw new Error(`unexpected ${url}`);
        return page;
      },
    } as unknown as ProviderHttp;
    const resolved = await resolveOwners(
      new ZoomApi(http, 'https://api.zoom.test/v2'),
      { account_owners: all } as never,
      null,
      () => Date.now(),
    );
    expect(resolved.owners.map((o) => [o.id, o.email])).toEqual([
      ['u-a', 'a@x'],
      ['u-b', 'b@x'],
      ['u-c', 'c@x'],
    ]);
    // The run's units wait on this list: the two statuses are not listed one after the other.
    expect(peak).toBe(2);
  });

  it('stops listing the other status when one fails, and the plan fails with that first error', async () => {
    const asked: string[] = [];
    const http = {
      json: async (url: string, opts: { signal?: AbortSignal } = {}) => {
        const q = new URL(url).searchParams;
        asked.push(`${q.get('status')}:${q.get('next_page_token') ?? ''}`);
        if (q.get('status') === 'inactive') throw new Error('Zoom refused the inactive listing');
        // Active users: page after page, each answered late; a request whose signal aborts is given up.
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, 20);
          opts.signal?.addEventListener('abort', () => (clearTimeout(timer), reject(new Error('aborted'))));
        });
        const n = Number(q.get('next_page_token') || 0) + 1;
        return { users: [{ id: `u-${n}`, email: `${n}@x` }], next_page_token: n < 5 ? String(n) : '' };
      },
    } as unknown as ProviderHttp;
    await expect(
      resolveOwners(new ZoomApi(http, 'https://api.zoom.test/v2'), { account_owners: all } as never, null, () =>
        Date.now(),
      ),
    ).rejects.toThrow(/refused the inactive listing/);
    await new Promise((resolve) => setTimeout(resolve, 150));
    // Only the active listing's first page was asked for: the failure stopped it.
    expect(asked.filter((a) => a.startsWith('active:'))).toEqual(['active:']);
  });
});
