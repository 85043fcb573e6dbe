import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.ts';
import { canonicalJson, filtersFingerprint } from '../../src/provider/fingerprint.ts';
import { csvCell } from '../../src/read/manifest.ts';
import { parseRange } from '../../src/read/queries.ts';

describe('filters fingerprint', () => {
  it('ignores key order at every level but not array order or values', () => {
    const a = {
      u1: { all_selected: false, selected: [{ id: 'f1' }, { id: 'f2' }], excluded: [] },
      u2: { all_selected: true },
    };
    const b = {
      u2: { all_selected: true },
      u1: { excluded: [], selected: [{ id: 'f1' }, { id: 'f2' }], all_selected: false },
    };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(filtersFingerprint(a)).toBe(filtersFingerprint(b));
    expect(filtersFingerprint(a)).not.toBe(filtersFingerprint({ ...a, u2: { all_selected: false } }));
    expect(filtersFingerprint({ l: [1, 2] })).not.toBe(filtersFingerprint({ l: [2, 1] }));
    expect(filtersFingerprint(a)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

describe('Range header', () => {
  const status = (f: () => unknown) => {
    try {
      f();
    } catch (err) {
      return (err as DomainError).status;
    }
    return 'ok';
  };
  it('reads the three single-range forms and clamps the end', () => {
    expect(parseRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(parseRange('bytes=90-', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=-500', 100)).toEqual({ start: 0, end: 99 });
    expect(parseRange('bytes=50-5000', 100)).toEqual({ start: 50, end: 99 });
  });
  it('ignores what it does not understand and refuses ranges outside the content', () => {
    expect(parseRange(undefined, 100)).toBeUndefined();
    expect(parseRange('bytes=0-1,5-6', 100)).toBeUndefined();
    expect(parseRange('items=0-1', 100)).toBeUndefined();
    expect(parseRange('bytes=9-3', 100)).toBeUndefined();
    expect(status(() => parseRange('bytes=100-', 100))).toBe(416);
    expect(status(() => parseRange('bytes=-0', 100))).toBe(416);
  });
});

describe('manifest CSV cells', () => {
  it('quotes separators and neutralises spreadsheet formulas', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('line\nbreak')).toBe('"line\nbreak"');
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell(-5)).toBe('-5');
    expect(csvCell(null)).toBe('');
    expect(csvCell(true)).toBe('true');
  });
});
