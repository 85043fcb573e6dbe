import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { BlobStore } from '../../../src/blobs/types.ts';
import { refetchMissing, type FreshBlob } from '../../../src/sync/execution/fresh-blobs.ts';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const blob = (s: string) => ({ sha256: sha(s), size: s.length, input: { source_id: s } }) as unknown as FreshBlob;

/** A store holding `held`, answering `has` one at a time, and `missing` together when `batched`. */
function store(held: Set<string>, batched: boolean, asked: string[]): BlobStore {
  const has = async (s: string) => (asked.push(`has ${s}`), held.has(s));
  const missing = async (list: string[]) => (asked.push(`missing ${list.length}`), list.filter((s) => !held.has(s)));
  return { has, ...(batched ? { missing } : {}) } as unknown as BlobStore;
}

describe('after a page commits, content a racing collect deleted is fetched again', () => {
  for (const batched of [true, false]) {
    it(`fetches each missing blob once, the others not at all (${batched ? 'one question' : 'has each'})`, async () => {
      const page = [blob('a'), blob('gone'), blob('b'), blob('gone'), blob('also gone')];
      const asked: string[] = [];
      const refetched: string[] = [];
      await refetchMissing(page, store(new Set([sha('a'), sha('b')]), batched, asked), async (b) => {
        refetched.push((b.input as unknown as { source_id: string }).source_id);
      });
      expect(refetched).toEqual(['gone', 'also gone']);
      if (batched) expect(asked).toEqual(['missing 5']);
      else expect(asked).toHaveLength(5);
    });
  }
});
