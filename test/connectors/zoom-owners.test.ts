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
});
