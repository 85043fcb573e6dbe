import { describe, expect, it } from 'vitest';
import { ZOOM_SANDBOX_SCOPES } from '../../sandbox/zoom/index.ts';
import { jsonOf, newCollection, pairFlow, type Json, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';
import { useZoomApp } from '../support/zoom-app.ts';

const CB = 'https://client.example/zoom-scopes';
/** GET /meetings/{meetingUUID}/recordings, where participant audio comes from (../shared/reference/zoom-api.md §1.5). */
const PARTICIPANT_AUDIO_SCOPE = 'cloud_recording:read:list_recording_files:admin';

const owners = { all_selected: true, selected: [], excluded: [] };
const content = (pick: Record<string, boolean>) => ({ all_selected: false, selected: [pick], excluded: [] });
const audioFilters = { account_owners: owners, content_selections: content({ audio: true }) };
const videoFilters = { account_owners: owners, content_selections: content({ video: true }) };

/** Reads the collection's event stream from its first event until `want` shows up (or 10 s pass). */
async function eventsUntil(
  t: TestApp,
  token: string,
  id: string,
  want: string,
): Promise<{ event: string; data: Json }[]> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 10_000);
  const seen: { event: string; data: Json }[] = [];
  try {
    const res = await fetch(`${t.url}/v1/collections/${id}/events`, {
      headers: { authorization: `Bearer ${token}`, 'last-event-id': '0' },
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(frame)?.[1];
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        if (event && data) seen.push({ event, data: JSON.parse(data) as Json });
      }
      if (seen.some((e) => e.event === want)) break;
    }
  } catch (err) {
    if (!abort.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return seen;
}

/** Issue 20: a scope gap the saved filters already have shows right after pairing, not only at the next PATCH or start. */
describe.each(testDatabases.map((d) => [d.name, d] as const))(
  'a Zoom scope gap shown at pairing time, on %s',
  (_n, database) => {
    // The app is configured on the Marketplace without the meeting recordings endpoint's scope.
    const z = useZoomApp(
      database,
      {
        seed: 61,
        users: 2,
        meetingsPerUser: 1,
        channels: 1,
        scopes: ZOOM_SANDBOX_SCOPES.filter((s) => s !== PARTICIPANT_AUDIO_SCOPE),
      },
      { callback: CB },
    );
    const { call } = z;

    const pair = (id: string) =>
      pairFlow(z.t.call, z.token, id, { type: 'conf', redirectTo: CB, state: `s-${id}`, callbackOrigin: z.t.url });

    it('filters saved before pairing that need a scope the grant lacks: the collection lists it and an event says so', async () => {
      const id = await newCollection(z.t.call, z.token, 'conf', 'audio before pairing');
      expect((await call('PATCH', `/v1/collections/${id}`, { sync_filters: audioFilters })).status).toBe(204);
      await pair(id);

      const view = await jsonOf(await call('GET', `/v1/collections/${id}`), 200);
      expect(view.credentials_paired).toBe(true);
      expect(view.missing_scopes).toEqual([
        {
          scope: PARTICIPANT_AUDIO_SCOPE,
          feature: expect.stringMatching(/participant audio/),
          pointer: '/content_selections',
          message: expect.stringContaining(PARTICIPANT_AUDIO_SCOPE),
        },
      ]);
      const seen = await eventsUntil(z.t, z.token, id, 'collection.scopes_missing');
      expect(seen.filter((e) => e.event === 'collection.scopes_missing')).toEqual([
        {
          event: 'collection.scopes_missing',
          data: {
            collection_id: id,
            missing_scopes: [{ scope: PARTICIPANT_AUDIO_SCOPE, feature: expect.stringMatching(/participant audio/) }],
          },
        },
      ]);
      // Pairing does not change the status (the fixed contract): the gap is shown beside it, in words too.
      expect(view.sync_status).not.toBe('error');
      expect(view.status_reason).toEqual(expect.stringContaining(PARTICIPANT_AUDIO_SCOPE));
    });

    it('filters that need nothing missing: missing_scopes is [] and no event is emitted', async () => {
      const id = await newCollection(z.t.call, z.token, 'conf', 'video only');
      expect((await call('PATCH', `/v1/collections/${id}`, { sync_filters: videoFilters })).status).toBe(204);
      await pair(id);
      const view = await jsonOf(await call('GET', `/v1/collections/${id}`), 200);
      expect(view.missing_scopes).toEqual([]);
      expect(view.status_reason ?? null).toBeNull();
      // The stream from its first event: a run is started so that something arrives, and no scope event precedes it.
      expect((await call('POST', `/v1/collections/${id}/start`)).status).toBe(200);
      const seen = await eventsUntil(z.t, z.token, id, 'run.started');
      expect(seen.map((e) => e.event)).toContain('run.started');
      expect(seen.map((e) => e.event)).not.toContain('collection.scopes_missing');
    });

    it('unpaired or without filters: no missing_scopes field', async () => {
      const id = await newCollection(z.t.call, z.token, 'conf', 'unpaired');
      expect((await call('PATCH', `/v1/collections/${id}`, { sync_filters: audioFilters })).status).toBe(204);
      expect(await jsonOf(await call('GET', `/v1/collections/${id}`), 200)).not.toHaveProperty('missing_scopes');
    });
  },
);
