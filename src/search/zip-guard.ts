import { inflateRawSync } from 'node:zlib';

export interface ZipLimits {
  maxEntries: number;
  /** What all entries together may inflate to. */
  maxInflatedBytes: number;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_HEADER = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;

/** Like JSZip, takes the last end-of-central-directory record, so both read the same entries. */
function endOfCentralDirectory(zip: Buffer): number {
  const lowest = Math.max(0, zip.length - 22 - 0xffff);
  for (let at = zip.length - 22; at >= lowest; at--) {
    if (zip.readUInt32LE(at) === END_OF_CENTRAL_DIRECTORY) return at;
  }
  return -1;
}

function inflatesWithin(data: Buffer, size: number): string | null {
  try {
    inflateRawSync(data, { maxOutputLength: Math.max(size, 1) });
    return null;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE'
      ? 'an entry inflates past its declared size'
      : 'corrupt deflate data';
  }
}

/**
 * Why a zip archive (a docx) must not be handed to a library that inflates it, or null when it is within bounds.
 * JSZip compares an entry's declared size with what it inflated only after inflating all of it, so a few MiB of
 * hostile archive (a zip bomb, or one that understates its sizes) could take gigabytes. Here every entry is
 * inflated once with its declared size as a hard ceiling, and the declared sizes together must fit the limit.
 */
export function zipProblem(zip: Buffer, limits: ZipLimits): string | null {
  const end = endOfCentralDirectory(zip);
  if (end < 0) return 'not a zip archive';
  const entries = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  if (entries === 0xffff || at === 0xffffffff) return 'zip64 archive';
  if (entries > limits.maxEntries) return `${entries} entries`;
  let declared = 0;
  for (let n = 0; n < entries; n++) {
    if (at + 46 > zip.length || zip.readUInt32LE(at) !== CENTRAL_HEADER) return 'corrupt central directory';
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const local = zip.readUInt32LE(at + 42);
    at += 46 + zip.readUInt16LE(at + 28) + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);

    declared += size;
    if (declared > limits.maxInflatedBytes) return `inflates past ${limits.maxInflatedBytes} bytes`;
    if (local + 30 > zip.length || zip.readUInt32LE(local) !== LOCAL_HEADER) return 'corrupt local header';
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    if (start + compressedSize > zip.length) return 'truncated entry';
    if (method === STORED) {
      if (compressedSize !== size) return 'corrupt stored entry';
    } else if (method === DEFLATED) {
      const problem = inflatesWithin(zip.subarray(start, start + compressedSize), size);
      if (problem) return problem;
    } else {
      return `compression method ${method}`;
    }
  }
  return null;
}
