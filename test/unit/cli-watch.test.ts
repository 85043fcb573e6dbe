import { describe, expect, it } from 'vitest';
import { barValue, exitCodeFor, formatBytes, parseSse } from '../../src/cli/api/watch.ts';

describe('custody collections start --watch helpers', () => {
  it('reads one server-sent event block: the event name and its JSON data, joined over several data lines', () => {
    expect(
      parseSse('id: 7\nevent: run.progress\ndata: {"run_id":"r1","custodian":"alice",\ndata: "listed":3}'),
    ).toEqual({
      type: 'run.progress',
      data: { run_id: 'r1', custodian: 'alice', listed: 3 },
    });
    expect(parseSse(': keep-alive')).toBeNull();
    expect(parseSse('event: run.progress\ndata: not json')).toBeNull();
    expect(parseSse('data: {"a":1}')).toEqual({ type: 'message', data: { a: 1 } });
  });

  it('fills a bar with every outcome of the reconciliation, and wholly once the unit or run is finished', () => {
    const p = { listed: 10, collected: 3, unchanged: 2, excluded: 1, not_present: 1, failed: 1, bytes: 0 };
    // 3 + 2 + 1 + 1 + 1 of 10 settled while it runs
    expect(barValue(p, false)).toEqual({ done: 8, total: 10 });
    // a finished unit whose last pieces were settled without a progress event after them: full all the same
    expect(barValue(p, true)).toEqual({ done: 10, total: 10 });
    // an older server that sends only collected and failed
    expect(barValue({ listed: 4, collected: 1, failed: 1, bytes: 0 }, false)).toEqual({ done: 2, total: 4 });
    expect(barValue({ listed: 0, collected: 0, failed: 0, bytes: 0 }, true)).toEqual({ done: 1, total: 1 });
  });

  it('exits 0 only for a succeeded run', () => {
    expect(exitCodeFor('succeeded')).toBe(0);
    expect(exitCodeFor('completed_with_errors')).toBe(3);
    for (const s of ['failed', 'error', 'cancelled', 'something_new']) expect(exitCodeFor(s)).toBe(4);
  });

  it('prints sizes in binary units', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(5 * 1024 * 1024)).toBe('5.0 MiB');
  });
});
