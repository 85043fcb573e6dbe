import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createConnectors } from '../../src/connectors/index.ts';
import { testDatabases } from '../support/databases.ts';
import { createFakeConnector, type FakeSource } from '../support/fake-connector.ts';
import { startItemsApp, type ItemsApp } from '../support/items-app.ts';
import { runCustody } from '../support/process.ts';
import { seedCollection } from '../support/sync-fixtures.ts';

type Json = Record<string, any>;

// What a real provider failure reads like (provider-http.ts), with the sandbox's loopback address in it.
const ZOOM_404 =
  'GET http://127.0.0.1:44053/v2/meetings/gqjsA0h6CA0TZ6OrTiBofk%3D%3D/meeting_summary failed: HTTP 404 is not retryable';
const GRAPH_500 =
  'reading OneDrive item 01ABC of user u1 failed: GET http://127.0.0.1:39001/v1.0/users/u1/drive/items/01ABC/content failed: gave up after 5 attempts: HTTP 503 (provider said: busy)';

/** Issue 23 item 5: errors that say what to do, through the public interface. */
describe('errors that say what to do', () => {
  let app: ItemsApp;
  let token: string;
  let source: FakeSource = { units: [] };
  const fake = createFakeConnector({ source: () => source });

  beforeAll(async () => {
    // The real conf/edrive connectors validate filters; nothing here reaches a provider.
    app = await startItemsApp(testDatabases[0], [fake, ...createConnectors(loadConfig({}))]);
    token = await app.token('acme');
  });
  afterAll(async () => app?.close());

  const json = async (res: Response, status: number) => {
    const body = (await res.json()) as Json;
    expect(res.status, JSON.stringify(body)).toBe(status);
    expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'id', 'links', 'source', 'title']);
    return body;
  };
  const raw = (method: string, p: string, type: string, body: string) =>
    fetch(`${app.url}${p}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': type }, body });

  it('an enum violation names the field and lists the allowed values', async () => {
    const { collectionId } = await seedCollection(app.ctx.db, { account: 'acme', sealer: app.ctx.sealer });
    const body = await json(
      await app.call(token, 'PATCH', `/v1/collections/${collectionId}`, { json: { type_sync: 'once' } }),
      400,
    );
    expect(body.detail).toBe('body type_sync must be one of "one", "arch", "auto".');
    expect(body.source).toEqual({ pointer: '/body/type_sync' });
  });

  it('every problem of a body is listed, the pointer on the first', async () => {
    const { collectionId } = await seedCollection(app.ctx.db, { account: 'acme', sealer: app.ctx.sealer });
    const body = await json(
      await app.call(token, 'PATCH', `/v1/collections/${collectionId}`, {
        json: { type_sync: 'once', sync_status: 'later', colour: 'red' },
      }),
      400,
    );
    expect(body.detail).toMatch(/^3 problems: /);
    expect(body.detail).toContain('body type_sync must be one of "one", "arch", "auto"');
    expect(body.detail).toContain('body sync_status must be "pending"');
    expect(body.detail).toContain('unknown field "colour"');
  });

  it('every problem of sync_filters is listed, none hidden behind "(1 more problem)"', async () => {
    const { collectionId } = await seedCollection(app.ctx.db, {
      account: 'acme',
      sealer: app.ctx.sealer,
      type: 'conf',
    });
    const body = await json(
      await app.call(token, 'PATCH', `/v1/collections/${collectionId}`, { json: { sync_filters: {} } }),
      422,
    );
    expect(body.detail).toBe(
      '2 problems: sync_filters/account_owners: is required; sync_filters/content_selections: is required.',
    );
    expect(body.source).toEqual({ pointer: '/body/sync_filters/account_owners' });
  });

  it('past five problems the rest are counted', async () => {
    const { collectionId } = await seedCollection(app.ctx.db, { account: 'acme', sealer: app.ctx.sealer });
    const extra = Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((k) => [k, 1]));
    const body = await json(await app.call(token, 'PATCH', `/v1/collections/${collectionId}`, { json: extra }), 400);
    expect(body.detail).toBe(
      '7 problems: unknown field "a"; unknown field "b"; unknown field "c"; unknown field "d"; unknown field "e"; and 2 more.',
    );
  });

  it('a JSON route answers a form (as curl -d sends it) with a 415 naming application/json', async () => {
    const { collectionId } = await seedCollection(app.ctx.db, { account: 'acme', sealer: app.ctx.sealer });
    const body = await json(
      await raw('PATCH', `/v1/collections/${collectionId}`, 'application/x-www-form-urlencoded', '{"type_sync":"one"}'),
      415,
    );
    expect(body.detail).toBe(
      'This route reads JSON bodies: send Content-Type: application/json, not application/x-www-form-urlencoded.',
    );
    const after = (await (await app.call(token, 'GET', `/v1/collections/${collectionId}`)).json()) as Json;
    expect(after.type_sync).toBe('one');
  });

  it('any other media type gets the same 415, and the token endpoint still reads forms', async () => {
    const body = await json(await raw('POST', '/v1/workspaces', 'text/plain', '{"name":"w","description":"d"}'), 415);
    expect(body.detail).toContain('application/json, not text/plain');
    const form = await app.call(null, 'POST', '/v1/oauth/token', {
      form: { grant_type: 'client_credentials', client_id: 'nobody', client_secret: 'nothing' },
    });
    const xml = await fetch(`${app.url}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/xml' },
      body: '<grant/>',
    });
    expect(xml.status).toBe(400);
    expect(await xml.json()).toEqual({
      error: 'invalid_request',
      error_description: 'The body must be form-encoded (application/x-www-form-urlencoded).',
    });
    // read as a form: the unknown client is invalid_client (401), not a 415 or invalid_request
    expect(form.status).toBe(401);
    expect(((await form.json()) as Json).error).toBe('invalid_client');
  });

  it("an empty body of any media type is no body (a start sent with a client's default header)", async () => {
    const { collectionId } = await seedCollection(app.ctx.db, { account: 'acme', sealer: app.ctx.sealer });
    const res = await raw('POST', `/v1/collections/${collectionId}/start`, 'text/plain', '');
    expect(res.status, await res.clone().text()).toBe(200);
    await app.engine.runOnce(((await res.json()) as Json).run_id);
  });

  it('exception reasons and run errors carry no internal URL', async () => {
    const { collectionId } = await seedCollection(app.ctx.db, { account: 'acme', sealer: app.ctx.sealer });
    source = {
      units: [
        {
          items: [],
          custodian: { key: 'alice', email: 'alice@example.com' },
          pieceErrors: [
            { kind: 'meeting_summary', sourceId: 'm1', name: 'Vendor negotiation', reason: ZOOM_404 },
            { kind: 'file', sourceId: '01ABC', name: 'memo.docx', reason: GRAPH_500 },
          ],
        },
      ],
    };
    const start = (await (await app.call(token, 'POST', `/v1/collections/${collectionId}/start`)).json()) as Json;
    await app.engine.runOnce(start.run_id);
    const rec = (await (
      await app.call(token, 'GET', `/v1/collections/${collectionId}/runs/${start.run_id}/reconciliation`)
    ).json()) as Json;
    const reasons = (rec.custodians as Json[]).flatMap((c) => (c.exceptions as Json[]).map((e) => e.reason as string));
    expect(reasons.sort()).toEqual([
      'Zoom answered 404 for the meeting summary',
      'reading OneDrive item 01ABC of user u1 failed: Microsoft Graph answered 503 for the content (gave up after 5 attempts) (provider said: busy)',
    ]);
    const csv = await (
      await app.call(
        token,
        'GET',
        `/v1/collections/${collectionId}/runs/${start.run_id}/reconciliation?format=csv&rows=exceptions`,
      )
    ).text();
    expect(csv).toContain('Zoom answered 404 for the meeting summary');
    const run = (await (
      await app.call(token, 'GET', `/v1/collections/${collectionId}/runs/${start.run_id}`)
    ).json()) as Json;
    const everything = JSON.stringify([rec, run]) + csv;
    expect(everything).not.toMatch(/https?:\/\//);
    expect(everything).not.toContain('127.0.0.1');
  });
});

describe('configuration errors at boot', () => {
  it('LOG_LEVEL out of its choices names them', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-config-'));
    const res = await runCustody(['serve'], { DATA_DIR: dataDir, LOG_LEVEL: 'verbose' });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain(
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "verbose")',
    );
  });
});
