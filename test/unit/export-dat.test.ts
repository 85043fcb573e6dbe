import { describe, expect, it } from 'vitest';
import { datFile } from '../../src/export/dat.ts';
import { REQUIRED_FIELDS } from '../export/package-oracle.ts';

const Q = '\u00fe';
const S = '\u0014';

describe('the Concordance load file', () => {
  const record = (over: Record<string, string>) =>
    Object.fromEntries(REQUIRED_FIELDS.map((f) => [f, over[f] ?? ''])) as never;

  it('starts with a BOM, quotes every field in þ, separates with U+0014 and ends each record with CRLF', () => {
    const bytes = datFile([record({ DOCID: 'CUST00000001', FILENAME: 'a.txt' })]);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const [head, row, rest] = bytes.subarray(3).toString('utf8').split('\r\n');
    expect(head).toBe(REQUIRED_FIELDS.map((f) => `${Q}${f}${Q}`).join(S));
    expect(row.split(S)[0]).toBe(`${Q}CUST00000001${Q}`);
    expect(row.split(S)).toHaveLength(REQUIRED_FIELDS.length);
    expect(rest).toBe('');
  });

  it('doubles þ, drops U+0014 and turns each line break into ® inside a value', () => {
    const bytes = datFile([record({ DOCID: 'D', FILENAME: `þorn${S}x\r\ny\nz\rw` })]);
    const row = bytes.subarray(3).toString('utf8').split('\r\n')[1];
    const filename = row.split(`${Q}${S}${Q}`)[REQUIRED_FIELDS.indexOf('FILENAME')];
    expect(filename).toBe('þþornx®y®z®w');
  });
});
