import { describe, expect, it } from 'vitest';
import type { Connector } from '../../src/connectors/types.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { createCollectionReads, type CollectionReadDeps } from '../../src/read/collections.ts';

const ROWS: Record<string, { id: string; account_id: string; type: string }> = {
  col_zoom: { id: 'col_zoom', account_id: 'acc_a', type: 'conf' },
  col_gone: { id: 'col_gone', account_id: 'acc_a', type: 'retired' },
};

function reads() {
  const conf = { type: 'conf', kinds: ['meeting'] } as unknown as Connector;
  const connectors = {
    get: (type: string) => (type === 'conf' ? conf : undefined),
    types: () => ['conf'],
  };
  const collections = {
    get: async (accountId: string, id: string) => (ROWS[id]?.account_id === accountId ? ROWS[id] : undefined),
  };
  return createCollectionReads({ repos: { collections }, connectors } as unknown as CollectionReadDeps);
}

async function refusal(p: Promise<unknown>): Promise<Pick<DomainError, 'status' | 'code' | 'detail'>> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  const { status, code, detail } = err as DomainError;
  return { status, code, detail };
}

describe('the read side loads the caller’s collection', () => {
  it("answers another account's collection exactly like an unknown one: 404", async () => {
    const r = reads();
    const notFound = { status: 404, code: '00404_not_found', detail: 'Collection not found.' };
    expect(await refusal(r.own('acc_b', 'col_zoom'))).toEqual(notFound);
    expect(await refusal(r.own('acc_a', 'col_nope'))).toEqual(notFound);
    expect(await refusal(r.load('acc_b', 'col_zoom'))).toEqual(notFound);
  });

  it('reads a collection of a type without a connector, but refuses to load it for work with 409', async () => {
    const r = reads();
    expect((await r.own('acc_a', 'col_gone')).connector).toBeUndefined();
    expect(await refusal(r.load('acc_a', 'col_gone'))).toEqual({
      status: 409,
      code: '00409_conflict',
      detail: 'Collection type retired has no connector on this server.',
    });
    expect((await r.load('acc_a', 'col_zoom')).connector.type).toBe('conf');
  });
});
