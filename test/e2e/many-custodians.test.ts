import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newCollection, startTestApp, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';

// Issue #25: a matter with thousands of custodians. An edrive collection names each custodian in its filters.
describe.each(testDatabases)('filters naming 10,000 custodians ($name)', (database) => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await startTestApp({ database, workers: false });
    token = await t.token('many-custodians');
  });
  afterAll(() => t.close());

  const users = (n: number) =>
    Object.fromEntries(
      Array.from({ length: n }, (_, i) => [
        `0d5c2f0e-1b7a-4c1e-9f3a-${String(i).padStart(12, '0')}`,
        { filter_type: 'user_folders', filter_name: `Custodian ${i}`, all_selected: true, selected: [], excluded: [] },
      ]),
    );

  it('are saved whole (about 1.3 MB), and a body over the route limit of 8 MiB is a 413', async () => {
    const col = await newCollection(t.call, token, 'edrive', 'many');
    const filters = users(10_000);
    const body = JSON.stringify({ sync_filters: filters });
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const patched = await t.call(token, 'PATCH', `/v1/collections/${col}`, { json: { sync_filters: filters } });
    expect(patched.status).toBe(204);
    const got = (await (await t.call(token, 'GET', `/v1/collections/${col}`)).json()) as {
      sync_filters: Record<string, { filter_name: string }>;
    };
    expect(Object.keys(got.sync_filters)).toHaveLength(10_000);
    expect(got.sync_filters['0d5c2f0e-1b7a-4c1e-9f3a-000000009999'].filter_name).toBe('Custodian 9999');

    const tooBig = await t.call(token, 'PATCH', `/v1/collections/${col}`, { json: { sync_filters: users(70_000) } });
    expect(tooBig.status).toBe(413);
  });
});
