// The commit of a small blob under group commit (FsBlobStore with `deferSync`), whose bytes the sink held in memory.
// Every call here is a metadata operation or a write of at most SMALL_BLOB_BYTES into the page cache: none waits on
// the disk (the fsyncs are the group sync's), and each is a few microseconds made on this thread, against tens of
// microseconds of CPU for the same call sent to the thread pool and back. For thousands of tiny items a second that
// difference is most of what a blob costs. A large blob keeps the asynchronous path (fs.ts).
import { closeSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { Placement } from './fs.ts';

/** The largest blob a group-commit writer holds in memory instead of a temp file. */
export const SMALL_BLOB_BYTES = 64 * 1024;

/**
 * Writes `bytes` to a temp file and renames it to the blob's path: still atomic for readers. The same bytes already
 * there are kept; anything else there (a torn file a crash left of an unsynced commit, whatever its size) is
 * replaced. Durability is the group sync's (FsBlobStore.sync) before anything records the blob.
 */
export function commitSmall(place: Placement, sha256: string, bytes: Buffer): void {
  const finalPath = place.pathFor(sha256);
  place.ensureDirSync(dirname(finalPath));
  if (holds(finalPath, bytes)) return;
  place.ensureDirSync(place.tmpDir);
  const tempPath = join(place.tmpDir, `${Date.now()}-${randomUUID()}.part`);
  // read-only for the service's user from its creation: the descriptor opened here still writes
  const fd = openSync(tempPath, 'wx', 0o400);
  try {
    try {
      for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done, done);
    } finally {
      closeSync(fd);
    }
    renameSync(tempPath, finalPath);
  } catch (error) {
    rmSync(tempPath, { force: true });
    throw error;
  }
}

/** The file at `path` holds exactly `bytes` (compared, not judged by size: it is at most SMALL_BLOB_BYTES). */
function holds(path: string, bytes: Buffer): boolean {
  const size = statSync(path, { throwIfNoEntry: false })?.size;
  if (size !== bytes.length) return false;
  try {
    return readFileSync(path).equals(bytes);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
