// Issue 24 with issue 20's chat reports: an edit a report returned reaches review as RSMF's `edits` of its message's
// event (who, when, the text before and after), not as a message of its own. The oracle is the sandbox's ground
// truth (each edited message's first and current text, and when it was edited), read with
// test/export/package-oracle.ts; nothing of src/ computes what is expected.
import { describe, expect, it } from 'vitest';
import { ZOOM_REPORT_SCOPES, ZOOM_SANDBOX_SCOPES } from '../../sandbox/zoom/index.ts';
import type { ZoomChatMessage } from '../../sandbox/zoom/tenant.ts';
import { readDat, readRsmf, rsmfProblems, unzip } from '../export/package-oracle.ts';
import { testDatabases } from '../support/databases.ts';
import { exportOf, syncedConf } from '../support/exports.ts';
import { useZoomApp } from '../support/zoom-app.ts';

const CB = 'https://client.example/export-edits';
type Edit = { participant: string; timestamp?: string; previous?: string; new?: string };
type Event = { id: string; body?: string; edits?: Edit[] };

describe.each(testDatabases.map((d) => [d.name, d] as const))('chat edits in an RSMF on %s', (_name, database) => {
  const z = useZoomApp(
    database,
    {
      seed: 61,
      users: 3,
      meetingsPerUser: 1,
      channels: 2,
      messagesPerChannel: 14,
      messagesPerChat: 12,
      chatExtras: true,
      scopes: [...ZOOM_SANDBOX_SCOPES, ...ZOOM_REPORT_SCOPES],
    },
    // The reports serve six months; a longer look-back is clamped to them.
    { callback: CB, env: { ZOOM_LOOKBACK_DAYS: '365' } },
  );

  it('folds each edit into its message event: previous is the text first sent, new the text as it stands', async () => {
    const conf = await syncedConf(z.t, z.token, CB, 'Zoom chat edits export');
    const items = await z.t.items(z.token, conf);
    const editItems = items.filter((i) => i.metadata.edited === true);
    expect(editItems.length).toBeGreaterThan(0);

    const { bytes } = await exportOf(z.t, z.token, conf, {});
    const files = await unzip(bytes);
    const events = new Map<string, Event[]>();
    for (const r of readDat(files.get('DATA/custody.dat')!).filter((row) => row.KIND === 'rsmf')) {
      const { manifest, zip } = await readRsmf(files.get(r.NATIVE_PATH)!);
      expect(rsmfProblems(manifest, zip), r.DOCID).toEqual([]);
      for (const e of manifest.events as Event[]) events.set(e.id, [...(events.get(e.id) ?? []), e]);
    }

    const truth = new Map<string, ZoomChatMessage>();
    for (const list of [
      ...z.sandbox.tenant.oneToOne.map((x) => x.messages),
      ...Object.values(z.sandbox.tenant.channelMessages),
    ])
      for (const m of list) if (m.status === 'Edited') truth.set(m.id, m);

    for (const item of editItems) {
      const m = truth.get(item.metadata.parent_source_id as string)!;
      expect(m, item.source_id).toBeDefined();
      // The edit is no event of its own; its message's event (in every RSMF that holds it) carries it.
      expect(events.has(item.source_id), item.source_id).toBe(false);
      const holders = events.get(m.id) ?? [];
      expect(holders.length, `${m.id} is an event`).toBeGreaterThan(0);
      for (const e of holders) {
        expect(e.body).toBe(m.message);
        expect(e.edits).toHaveLength(1);
        expect(e.edits![0]).toMatchObject({
          timestamp: new Date(m.actionAt!).toISOString(),
          previous: m.originalMessage,
          new: m.message,
        });
        expect(e.edits![0].participant).toBeTruthy();
      }
    }
  });
});
