// QuickXorHash, the content hash OneDrive for Business reports in `file.hashes.quickXorHash`.
//
// Byte i of the input is XORed into a 160-bit state at bit offset (i * 11) mod 160, wrapping across the
// 160-bit boundary; the state is serialized as 20 little-endian bytes and the total length (Int64 LE) is
// XORed into bytes 12..19. Because gcd(11, 160) = 1, the offset depends only on i mod 160, so every byte at
// the same position mod 160 lands on the same bits: we XOR-fold the input into 160 lanes (one XOR per byte,
// four at a time when aligned) and spread the lanes across the 160-bit state only when a digest is asked for.

const WIDTH_BITS = 160;
const LANES = WIDTH_BITS; // one lane per input position modulo 160
const WORD_LANES = LANES / 4;
const STATE_BYTES = WIDTH_BITS / 8;
const LENGTH_OFFSET = STATE_BYTES - 8;
const SCRATCH_BYTES = 64 * 1024;

export class QuickXorHash {
  readonly #lanes = new Uint8Array(LANES);
  readonly #words = new Uint32Array(this.#lanes.buffer);
  #length = 0;
  #scratch: Uint8Array | undefined;

  update(chunk: Uint8Array): this {
    const total = chunk.length;
    let lane = this.#length % LANES;
    let i = 0;
    const lanes = this.#lanes;
    while (i < total && (lane & 3) !== 0) {
      lanes[lane] ^= chunk[i];
      lane = lane + 1 === LANES ? 0 : lane + 1;
      i++;
    }
    while (total - i >= 4) {
      const take = Math.min((total - i) & ~3, SCRATCH_BYTES);
      const start = chunk.byteOffset + i;
      let words: Uint32Array;
      if ((start & 3) === 0) {
        words = new Uint32Array(chunk.buffer, start, take >>> 2);
      } else {
        this.#scratch ??= new Uint8Array(SCRATCH_BYTES);
        this.#scratch.set(chunk.subarray(i, i + take));
        words = new Uint32Array(this.#scratch.buffer, 0, take >>> 2);
      }
      this.#foldWords(words, lane >>> 2);
      lane = (lane + take) % LANES;
      i += take;
    }
    while (i < total) {
      lanes[lane] ^= chunk[i];
      lane = lane + 1 === LANES ? 0 : lane + 1;
      i++;
    }
    this.#length += total;
    return this;
  }

  digest(): Buffer {
    const state = Buffer.alloc(STATE_BYTES);
    const lanes = this.#lanes;
    for (let lane = 0; lane < LANES; lane++) {
      const value = lanes[lane];
      if (value === 0) continue;
      const bit = (lane * 11) % WIDTH_BITS;
      const index = bit >>> 3;
      const shift = bit & 7;
      state[index] ^= (value << shift) & 0xff;
      if (shift !== 0) state[(index + 1) % STATE_BYTES] ^= value >>> (8 - shift);
    }
    let length = this.#length;
    for (let k = 0; k < 8; k++) {
      state[LENGTH_OFFSET + k] ^= length % 256;
      length = Math.floor(length / 256);
    }
    return state;
  }

  digestBase64(): string {
    return this.digest().toString('base64');
  }

  #foldWords(words: Uint32Array, startWordLane: number): void {
    const acc = this.#words;
    const count = words.length;
    let w = startWordLane;
    let k = 0;
    // Both views share the platform's byte order, so word-wise XOR equals byte-wise XOR lane by lane.
    while (k < count) {
      const run = Math.min(WORD_LANES - w, count - k);
      for (let end = k + run; k < end; k++, w++) acc[w] ^= words[k];
      if (w === WORD_LANES) w = 0;
    }
  }
}

export function quickXorHashBase64(data: Uint8Array): string {
  return new QuickXorHash().update(data).digestBase64();
}

/** Where a hashing thread finds this hasher (see HasherModule in the blob store). */
export const QUICK_XOR_MODULE = { module: import.meta.url, exportName: 'QuickXorHash' };
