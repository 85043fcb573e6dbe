import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobWriter } from '../../src/blobs/types.ts';
import { loadConfig } from '../../src/config.ts';
import { createRuntime, type Runtime } from '../../src/runtime.ts';

/** Every file and folder the service creates under DATA_DIR is its user's alone (the embedded default, key file included). */
describe('DATA_DIR permissions', () => {
  let root: string;
  let dataDir: string;
  let runtime: Runtime;
  let open: BlobWriter;
  const modeOf = (p: string) => fs.statSync(p).mode & 0o777;

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'custody-modes-'));
    dataDir = path.join(root, 'data');
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    runtime = await createRuntime(config, { log: pino({ level: 'silent' }), connectors: [], workers: false });
    // larger than what the database keeps (BLOB_DB_MAX_BYTES): these are files
    const writer = await runtime.ctx.blobs.writer();
    await writer.write(Buffer.alloc(config.blobDbMaxBytes + 1, 'evidence'));
    await writer.commit();
    // a write that is still under way leaves its temporary file
    open = await runtime.ctx.blobs.writer();
    await open.write(Buffer.alloc(config.blobDbMaxBytes + 1, 'partial'));
  });
  afterAll(async () => {
    // the unfinished write's file handle is closed by its owner, not left to the garbage collector
    await open.abort();
    await runtime.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('creates files 0600 (blobs and their temporary files 0400: never rewritten) and folders 0700', () => {
    const files: string[] = [];
    const dirs: string[] = [dataDir];
    for (const entry of fs.readdirSync(dataDir, { recursive: true }) as string[]) {
      const p = path.join(dataDir, entry);
      (fs.statSync(p).isDirectory() ? dirs : files).push(p);
    }
    expect(files.map((f) => path.basename(f))).toEqual(expect.arrayContaining(['custody.db', 'secret.key']));
    expect(files.some((f) => f.endsWith('.part'))).toBe(true);
    expect(dirs.length).toBeGreaterThan(2);
    for (const d of dirs) expect([d, modeOf(d).toString(8)]).toEqual([d, '700']);
    for (const f of files) {
      // a blob's temporary file too: created read-only, written through the descriptor that created it
      const blob = f.includes(`${path.sep}blobs${path.sep}`);
      expect([f, modeOf(f).toString(8)]).toEqual([f, blob ? '400' : '600']);
    }
  });
});
