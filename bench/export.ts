import crypto from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createFsBlobStore } from '../src/blobs/index.ts';
import { createSealer } from '../src/domain/seal.ts';
import { SigningKeys } from '../src/export/keys.ts';
import { writePackage } from '../src/export/package.ts';
import { createDocumentReader } from '../src/search/index.ts';
import { migrate, openDatabase } from '../src/store/db.ts';
import { newId } from '../src/store/ids.ts';
import { fixtureCollection, fixtureItem } from '../test/store/items-fixture.ts';

const MiB = 1024 * 1024;

/**
 * `npm run bench -- export`: a package of `files` × 16 MiB natives (1 GiB at scale 1) written through the export
 * writer to the filesystem blob store, against a plain streaming copy of the same blobs into one file; peak RSS above
 * the baseline while exporting. Prints figures only.
 */
export async function benchExport(scale: number): Promise<Record<string, string>> {
  const files = Math.max(1, Math.round(64 * scale));
  const size = 16 * MiB;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-bench-export-'));
  const db = openDatabase({ sqlitePath: path.join(dir, 'custody.db') });
  const documents = createDocumentReader();
  try {
    await migrate(db);
    const blobs = createFsBlobStore({ root: path.join(dir, 'blobs') });
    const ids = await fixtureCollection(db);
    const collectionId = ids.collectionId;
    const shas: string[] = [];
    const chunk = Buffer.alloc(MiB);
    for (let i = 0; i < files; i++) {
      const w = await blobs.writer();
      for (let k = 0; k < size / MiB; k++) {
        crypto.randomFillSync(chunk, 0, 64);
        chunk.writeUInt32LE(i, 64);
        await w.write(chunk);
      }
      const c = await w.commit();
      shas.push(c.sha256);
      const at = new Date().toISOString();
      await db
        .insertInto('items')
        .values(
          fixtureItem(ids, i, {
            id: newId('itm'),
            source_id: `f${i}`,
            name: `file-${i}.bin`,
            path: `/u/file-${i}.bin`,
            custodian: 'u1',
            size: c.size,
            mime_type: 'application/octet-stream',
            sha256: c.sha256,
            md5: c.md5,
            created_datetime: at,
            modified_datetime: at,
            collected_datetime: at,
            content_state: 'stored',
            holds_ref: 1,
            run_id: 'run_bench',
            first_seen_at: at,
            updated_at: at,
          }),
        )
        .execute();
    }
    const total = files * size;

    const copyTarget = path.join(dir, 'copy.bin');
    const copyStart = process.hrtime.bigint();
    const out = fs.createWriteStream(copyTarget);
    for (const sha of shas)
      for await (const c of (await blobs.read(sha)) as AsyncIterable<Buffer>)
        if (!out.write(c)) await once(out, 'drain');
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    const copyMs = Number(process.hrtime.bigint() - copyStart) / 1e6;
    fs.rmSync(copyTarget);

    global.gc?.();
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const keys = new SigningKeys(db, createSealer(crypto.randomBytes(32)));
    const start = process.hrtime.bigint();
    const result = await writePackage(
      { db, blobs, documents, keys },
      {
        id: newId('exp'),
        collection_id: collectionId,
        created_at: new Date().toISOString(),
        options: { items: {}, chat_format: 'rsmf', dedupe: 'none' },
      },
      { signal: new AbortController().signal, progress: () => undefined },
    );
    const exportMs = Number(process.hrtime.bigint() - start) / 1e6;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);
    const rate = (ms: number) => `${(total / MiB / (ms / 1000)).toFixed(0)} MiB/s`;
    return {
      'export content': `${files} files, ${(total / MiB).toFixed(0)} MiB; package ${(result.size / MiB).toFixed(0)} MiB`,
      'export plain copy': `${copyMs.toFixed(0)} ms (${rate(copyMs)})`,
      'export package': `${exportMs.toFixed(0)} ms (${rate(exportMs)}), ${((copyMs / exportMs) * 100).toFixed(0)} % of plain copy speed`,
      'export RSS': `+${((peak - baseline) / MiB).toFixed(0)} MiB over ${(baseline / MiB).toFixed(0)} MiB`,
    };
  } finally {
    await documents.stop();
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
