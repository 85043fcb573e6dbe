import { describe, expect, it } from 'vitest';
import { exitCodeFor, formatBytes, parseSse } from '../../src/cli/api/watch.ts';

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
