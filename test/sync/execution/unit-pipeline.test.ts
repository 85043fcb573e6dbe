import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector, Grant } from '../../../src/connectors/types.ts';
import { createZoomConnector } from '../../../src/connectors/zoom/index.ts';
import { startZoomSandbox, type ZoomSandbox } from '../../../sandbox/zoom/index.ts';
import { filters, LOOKBACK_DAYS, pair, sel } from '../../connectors/zoom-harness.ts';
import { testDatabases } from '../../support/databases.ts';
import { runToEnd, startItemsApp, type ItemsApp } from '../../support/items-app.ts';
import { seedCollection } from '../../support/sync-fixtures.ts';

/** The credential's concurrency (ZOOM_CONCURRENCY): requests in flight at once, whatever the pipeline wants. */
const CAP = 2;

/**
 * Issue 25: one unit is not one request at a time. While its writer records what came in, its listing asks for
 * more and the contents it will download are fetched, so the provider sees several of its requests at once, but
 * never more than the credential's concurrency. Counted where the requests arrive: at the Zoom simulator.
 */
describe('one unit keeps several requests in flight, within the concurrency cap', () => {
  const database = testDatabases[0];
  let sandbox: ZoomSandbox;
  let app: ItemsApp;
  let connector: Connector;
  let grant: Grant;

  beforeAll(async () => {
    // One owner (one unit) with recordings to download; every API call and every download answered 40 ms late.
    sandbox = await startZoomSandbox({
      seed: 25,
      users: 1,
      meetingsPerUser: 6,
      channels: 0,
      oneToOnePeersPerUser: 1,
      messagesPerChat: 4,
      latencyMs: 40,
      downloadLatencyMs: 40,
    });
    connector = createZoomConnector({
      clientId: sandbox.clientId,
      clientSecret: sandbox.clientSecret,
      oauthUrl: sandbox.oauthUrl,
      apiUrl: sandbox.apiUrl,
      lookbackDays: LOOKBACK_DAYS,
      budget: { ratePerSecond: 10_000, concurrency: CAP },
    });
    grant = await pair(connector);
    app = await startItemsApp(database, [connector]);
  });
  afterAll(async () => {
    await app?.close();
    await sandbox?.close();
  });

  it('has more than one request at the provider at a time, and never more than the cap', async () => {
    const owner = sandbox.tenant.users[0].id;
    const { collectionId } = await seedCollection(app.ctx.db, {
      type: 'conf',
      account: 'acme',
      sealer: app.ctx.sealer,
      grant,
      filters: filters({ account_owners: sel({ selected: [owner] }) }),
    });
    const token = await app.token('acme');
    const start = await app.call(token, 'POST', `/v1/collections/${collectionId}/start`);
    expect(start.status).toBe(200);
    const runId = ((await start.json()) as { run_id: string }).run_id;
    sandbox.inFlight.resetPeak();
    expect(await runToEnd(app, runId)).toBe('succeeded');
    const files = sandbox.requests.filter((r) => r.listener === 'files').length;
    expect(files).toBeGreaterThan(3);
    expect(sandbox.inFlight.peak).toBeGreaterThan(1);
    expect(sandbox.inFlight.peak).toBeLessThanOrEqual(CAP);
  });
});
