import { describe, expect, it } from 'vitest';
import { encodeMeetingUuid } from '../../src/connectors/zoom/api.ts';
import { looksLikeHtml } from '../../src/connectors/zoom/content.ts';
import { fileKind, fileSourceId, segment } from '../../src/connectors/zoom/items.ts';
import { isoSeconds, monthWindows } from '../../src/connectors/zoom/windows.ts';

describe('zoom connector pieces', () => {
  it('double-encodes exactly the meeting UUIDs Zoom requires it for', () => {
    expect(encodeMeetingUuid('/ajXp112QmuoKj4854875==')).toBe('%252FajXp112QmuoKj4854875%253D%253D');
    expect(encodeMeetingUuid('ajXp1//2QmuoKj4854875==')).toBe('ajXp1%252F%252F2QmuoKj4854875%253D%253D');
    expect(encodeMeetingUuid('aj/Xp12Q+uoKj4854875==')).toBe('aj%2FXp12Q%2BuoKj4854875%3D%3D');
  });

  it('splits history into calendar months that never exceed one month, oldest first', () => {
    const from = Date.parse('2024-01-17T00:00:00Z');
    const to = Date.parse('2024-03-05T10:00:00Z');
    const w = monthWindows(from, to).map((x) => [new Date(x.start).toISOString(), new Date(x.end).toISOString()]);
    expect(w).toEqual([
      ['2024-01-17T00:00:00.000Z', '2024-01-31T23:59:59.999Z'],
      ['2024-02-01T00:00:00.000Z', '2024-02-29T23:59:59.999Z'],
      ['2024-03-01T00:00:00.000Z', '2024-03-05T10:00:00.000Z'],
    ]);
    expect(monthWindows(to, to)).toHaveLength(1);
    expect(isoSeconds(Date.parse('2024-02-01T00:00:00.999Z'))).toBe('2024-02-01T00:00:00Z');
  });

  it("recognises Zoom's HTML failure page but not recording bytes", () => {
    expect(looksLikeHtml(Buffer.from('<!DOCTYPE html><html><head><title>Error - Zoom</title>'))).toBe(true);
    expect(looksLikeHtml(Buffer.from('  <html lang="en">'))).toBe(true);
    expect(looksLikeHtml(Buffer.from('WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.000'))).toBe(false);
    expect(looksLikeHtml(Buffer.from('000000206674797069736f6d', 'hex'))).toBe(false);
  });

  it('maps file types to kinds (captions and timelines are transcripts) and keys id-less files stably', () => {
    expect(fileKind({ file_type: 'CC' })).toEqual({ kind: 'transcript', content: 'transcript' });
    expect(fileKind({ file_type: 'TIMELINE' })).toEqual({ kind: 'transcript', content: 'transcript' });
    expect(fileKind({ file_type: 'TB' })).toEqual({ kind: 'transcript', content: 'transcript' });
    expect(fileKind({ file_type: 'CSV' })).toBeUndefined();
    const m = { uuid: 'u==' };
    expect(fileSourceId(m, { file_type: 'CC', recording_start: '2024-01-01T10:00:00Z' })).toBe(
      'u==|CC|2024-01-01T10:00:00Z',
    );
    expect(fileSourceId(m, { id: 'abc', file_type: 'MP4' })).toBe('abc');
    expect(segment('Q3 / budget\\review\n', 'x')).toBe('Q3 - budget-review');
  });
});
