import { createRequire } from 'node:module';
import zlib from 'node:zlib';

/**
 * yazl computes each entry's CRC-32 with buffer-crc32, pure JavaScript (about 50 MiB/s on the 2-core development
 * machine: the export's bottleneck). zlib.crc32 (Node >= 20.15) is the same function, natively; yazl's `require`
 * shares this module object, so pointing its `unsigned` at zlib.crc32 makes every ZIP this process writes use it.
 */
export function useNativeCrc32(): void {
  if (typeof zlib.crc32 !== 'function') return;
  const lib = createRequire(import.meta.url)('buffer-crc32') as {
    unsigned: (buf: Buffer, previous?: number) => number;
  };
  lib.unsigned = (buf, previous) => zlib.crc32(buf, typeof previous === 'number' ? previous : 0);
}
