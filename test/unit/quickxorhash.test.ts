import { describe, expect, it } from 'vitest';
import { QuickXorHash, quickXorHashBase64 } from '../../src/connectors/onedrive/quickxorhash.ts';

// Test vectors from shared/reference/microsoft-graph-api.md §4.
const VECTORS: Array<[string, Uint8Array, string]> = [
  ['empty', new Uint8Array(), 'AAAAAAAAAAAAAAAAAAAAAAAAAAA='],
  ['"a"', Buffer.from('a'), 'YQAAAAAAAAAAAAAAAQAAAAAAAAA='],
  ['"hello world"', Buffer.from('hello world'), 'aCgDG9jwBhDc4Q1yawMZAAAAAAA='],
  ['bytes 0x00..0xFF', Uint8Array.from({ length: 256 }, (_, i) => i), 'QkGEfSisZcA7k+FCh71r2dbCayY='],
  ['1,000,000 x "a"', Buffer.alloc(1_000_000, 'a'), 'AAAAAAAAAAAAAAAAQEIPAAAAAAA='],
];

// A slow, literal reading of the spec (three UInt64 cells, the last one 32 bits wide, one byte at a time)
// used as an oracle for the table-free fast implementation.
function oracle(data: Uint8Array): string {
  const cells = [0n, 0n, 0n];
  const widths = [64n, 64n, 32n];
  let shift = 0;
  for (const byte of data) {
    const cell = Math.floor(shift / 64);
    const offset = BigInt(shift % 64);
    const width = widths[cell];
    const mask = (1n << width) - 1n;
    cells[cell] ^= (BigInt(byte) << offset) & mask;
    if (offset > width - 8n) {
      const next = (cell + 1) % 3;
      cells[next] ^= BigInt(byte) >> (width - offset);
    }
    shift = (shift + 11) % 160;
  }
  const out = Buffer.alloc(20);
  out.writeBigUInt64LE(cells[0], 0);
  out.writeBigUInt64LE(cells[1], 8);
  out.writeUInt32LE(Number(cells[2]), 16);
  const length = Buffer.alloc(8);
  length.writeBigInt64LE(BigInt(data.length));
  for (let i = 0; i < 8; i++) out[12 + i] ^= length[i];
  return out.toString('base64');
}

function seededBytes(seed: number, length: number): Uint8Array {
  let state = seed >>> 0;
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = state >>> 24;
  }
  return out;
}

describe('QuickXorHash', () => {
  for (const [label, input, expected] of VECTORS) {
    it(`matches the reference vector for ${label}`, () => {
      expect(quickXorHashBase64(input)).toBe(expected);
      expect(new QuickXorHash().update(input).digestBase64()).toBe(expected);
    });
  }

  it('the spec oracle itself agrees with the reference vectors', () => {
    for (const [, input, expected] of VECTORS.slice(0, 4)) expect(oracle(input)).toBe(expected);
  });

  it('agrees with the spec oracle on random inputs of many lengths', () => {
    for (let n = 0; n < 60; n++) {
      const length = n < 40 ? n * 7 : 1000 + n * 331;
      const data = seededBytes(n + 1, length);
      expect(quickXorHashBase64(data), `length ${length}`).toBe(oracle(data));
    }
  });

  it('gives the same digest for random chunk splits as for one update', () => {
    let seed = 99;
    const random = (max: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % max;
    };
    for (let round = 0; round < 40; round++) {
      const data = seededBytes(1000 + round, 500 + random(200_000));
      const expected = quickXorHashBase64(data);
      const hash = new QuickXorHash();
      let offset = 0;
      while (offset < data.length) {
        const size = random(4) === 0 ? random(8) : random(70_000);
        hash.update(data.subarray(offset, offset + size));
        offset += size;
      }
      expect(hash.digestBase64(), `round ${round}`).toBe(expected);
    }
  });

  it('handles chunks that are views at unaligned offsets of larger buffers', () => {
    const backing = seededBytes(7, 300_003);
    const data = backing.subarray(3);
    const hash = new QuickXorHash();
    for (let offset = 0; offset < data.length; offset += 65_537) hash.update(data.subarray(offset, offset + 65_537));
    expect(hash.digestBase64()).toBe(oracle(data));
  });

  it('digest does not finalize the state, so hashing can continue', () => {
    const hash = new QuickXorHash().update(Buffer.from('hello '));
    expect(hash.digestBase64()).toBe(quickXorHashBase64(Buffer.from('hello ')));
    hash.update(Buffer.from('world'));
    expect(hash.digestBase64()).toBe('aCgDG9jwBhDc4Q1yawMZAAAAAAA=');
    expect(hash.digest()).toHaveLength(20);
  });

  it('changes when a single byte changes', () => {
    const data = seededBytes(5, 4096);
    const before = quickXorHashBase64(data);
    data[2048] ^= 0x01;
    expect(quickXorHashBase64(data)).not.toBe(before);
  });
});
