// The RSMF writer on what the sandbox does not give: non-ASCII and RFC 5322-special names, many participants
// (folded headers), threads across days, deleted messages and an attachment larger than one stream chunk. Read back
// with the package oracle (test/export/package-oracle.ts), which follows Relativity's documents, not src/.
import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ChatGroup, ChatMessage, ChatPerson } from '../../src/export/chat.ts';
import { rsmfStream } from '../../src/export/rsmf.ts';
import type { ExportItem } from '../../src/export/selection.ts';
import { readRsmf, rsmfHeaderProblems, rsmfProblems } from '../export/package-oracle.ts';

/** RFC 2047 B-encoded words back to text (adjacent words joined: the space between them is not text). */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/(?:=\?UTF-8\?B\?[A-Za-z0-9+/=]*\?=)+/g, (run) =>
      Buffer.concat(
        [...run.matchAll(/=\?UTF-8\?B\?([A-Za-z0-9+/=]*)\?=/g)].map((m) => Buffer.from(m[1], 'base64')),
      ).toString('utf8'),
    );
}

const person = (i: number): ChatPerson => ({
  id: `p${i}`,
  name: i % 3 === 0 ? `Zoë Müller-Łukasiewicz ${i}` : i % 3 === 1 ? `"Quinn" Rivera (Acme, ${i})` : `Sam ${i}`,
  email: i % 2 === 0 ? `person${i}@example.com` : '',
  account_id: `member${i}`,
});

describe('an RSMF file', () => {
  it('keeps names, threads, deletions and attachments within RFC 5322 and the RSMF 2.0 schema', async () => {
    const people = Array.from({ length: 14 }, (_, i) => person(i));
    const conversation = {
      id: 'C1',
      name: 'Projekt Übersee — äöü ß 漢字 channel with a rather long name',
      type: 'channel',
    };
    const message = (id: string, k: number, extra: Partial<ChatMessage> = {}): ChatMessage => ({
      id,
      conversation,
      from: people[k % people.length],
      sent_at: `2026-03-04T10:${String(k).padStart(2, '0')}:00.000Z`,
      text: `message ${id} ✓`,
      files: [],
      parent_id: null,
      deleted: false,
      edit: null,
      ...extra,
    });
    const messages = [
      ...people.map((_, k) => message(`m${k}`, k)),
      message('reply', 20, { parent_id: 'm0' }),
      message('orphan-reply', 21, { parent_id: 'a-message-of-another-day' }),
      message('gone', 22, { deleted: true, text: '' }),
      // Two edits of m2 from the chat reports (given out of order), each keeping the text it replaced; and an edit of
      // a message of another day, which stays an event of its own.
      message('m2|edited|2', 2, { text: 'second draft', edit: { of: 'm2', at: '2026-03-04T11:30:00.000Z' } }),
      message('m2|edited|1', 2, { text: 'first draft', edit: { of: 'm2', at: '2026-03-04T11:00:00.000Z' } }),
      message('x|edited|1', 23, { text: 'lone edit', edit: { of: 'x', at: '2026-03-04T12:00:00.000Z' } }),
    ];
    const bytes = crypto.randomBytes(300_000);
    const file = { name: 'Angebot (final).pdf', size: bytes.length, sha256: 'f'.repeat(64), content_state: 'stored' };
    const group: ChatGroup = {
      key: 'k',
      conversation,
      day: '2026-03-04',
      custodian: 'C1',
      messages,
      items: [],
      participants: people,
      ownerId: '',
      files: [{ item: file as ExportItem, messageId: 'm1', docid: 'CUST00000002', zipName: 'CUST00000002.pdf' }],
    };
    // Small chunks: the base64 lines must run on across them.
    const open = () =>
      Readable.from(Array.from({ length: 30 }, (_, i) => bytes.subarray(i * 10_000, (i + 1) * 10_000)));
    const chunks: Buffer[] = [];
    for await (const c of rsmfStream(group, { exportId: 'exp_1', custodian: 'channel:C1', open })) chunks.push(c);
    const out = Buffer.concat(chunks);

    const { headers, manifest, zip } = await readRsmf(out);
    expect(rsmfProblems(manifest, zip)).toEqual([]);
    expect(rsmfHeaderProblems(headers, manifest)).toEqual([]);
    expect(headers.get('x-rsmf-attachmentcount')).toBe('1');
    expect(zip.get('CUST00000002.pdf')).toEqual(bytes);
    const events = new Map(manifest.events.map((e: { id: string }) => [e.id, e]));
    expect(events.get('m1')).toMatchObject({
      attachments: [{ id: 'CUST00000002.pdf', display: file.name, size: bytes.length }],
    });
    expect(events.get('reply')).toMatchObject({ parent: 'm0' });
    expect(events.get('orphan-reply')).not.toHaveProperty('parent');
    expect(events.get('gone')).toMatchObject({ deleted: true });
    expect((events.get('m2') as { edits?: unknown }).edits).toEqual([
      { participant: 'p2', timestamp: '2026-03-04T11:00:00.000Z', previous: 'first draft', new: 'second draft' },
      { participant: 'p2', timestamp: '2026-03-04T11:30:00.000Z', previous: 'second draft', new: 'message m2 ✓' },
    ]);
    expect(events.has('m2|edited|1')).toBe(false);
    expect(events.has('m2|edited|2')).toBe(false);
    expect(events.get('x|edited|1')).toMatchObject({ body: 'lone edit' });
    expect(headers.get('x-rsmf-eventcount')).toBe(String(messages.length - 2));

    const head = out.subarray(0, out.indexOf('\r\n\r\n')).toString('ascii');
    for (const line of head.split('\r\n')) expect(line.length, line).toBeLessThanOrEqual(78);
    expect(decodeWords(headers.get('x-rsmf-participants')!)).toBe(people.map((p) => p.name).join(', '));
    expect(decodeWords(headers.get('subject')!)).toContain(conversation.name);
    // Every participant is in To, by e-mail where known; From is the first sender.
    const to = decodeWords(headers.get('to')!);
    for (const p of people) {
      expect(to).toContain(p.email || `${p.account_id}@zoom.invalid`);
      expect(to).toContain(p.name.replace(/(["\\])/g, '\\$1'));
    }
    expect(decodeWords(headers.get('from')!)).toBe(`Zoë Müller-Łukasiewicz 0 <person0@example.com>`);
    const body = out.subarray(out.indexOf('\r\n\r\n') + 4).toString('ascii');
    for (const line of body.split('\r\n')) expect(line.length).toBeLessThanOrEqual(76);
  });
});
