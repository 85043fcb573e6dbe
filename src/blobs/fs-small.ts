// The commit of a small blob under group commit (FsBlobStore with `deferSync`), whose bytes the sink held in memory:
// no temp file while it downloads, no chmod (created read-only), and no fsync here (the group sync's). The calls stay
// asynchronous: on a busy disk creating a file or a shard directory takes the kernel a fraction of a millisecond,
// which made on the event loop held every other item back (measured: fewer items a second, not less CPU).
import { readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { Placement } from './fs.ts';

/** The largest blob a group-commit writer holds in memory instead of a temp file. */
export const SMALL_BLOB_BYTES = 64 * 1024;

/**
 * Writes `bytes` to a temp file in one call and renames it to the blob's path: still atomic for readers. The same
 * bytes already there are kept; anything else there (a torn file a crash left of an unsynced commit, whatever its
 * size) is replaced. Durability is the group sync's (FsBlobStore.sync) before anything records the blob.
 */
export async function commitSmall(place: Placement, sha256: string, bytes: Buffer): Promise<void> {
  const finalPath = place.pathFor(sha256);
  // A shard directory this call created holds no torn file of this blob: no stat of its path (while the store is
  // young, most blobs get a new one). Another writer of the same bytes may get there meanwhile: the rename then
  // replaces its file with the same bytes.
  const fresh = await place.ensureDir(dirname(finalPath));
  if (!fresh && (await holds(finalPath, bytes))) return;
  await place.ensureDir(place.tmpDir);
  const tempPath = join(place.tmpDir, `${Date.now()}-${randomUUID()}.part`);
  try {
    // read-only for the service's user from its creation: the descriptor opened for it still writes
    await writeFile(tempPath, bytes, { flag: 'wx', mode: 0o400 });
    await rename(tempPath, finalPath);
  } catch (error) {
    await rm(tempPath, { force: true });
    throw error;
  }
}

/** The file at `path` holds exactly `bytes` (compared, not judged by size: it is at most SMALL_BLOB_BYTES). */
async function holds(path: string, bytes: Buffer): Promise<boolean> {
  try {
    if ((await stat(path)).size !== bytes.length) return false;
    return (await readFile(path)).equals(bytes);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
