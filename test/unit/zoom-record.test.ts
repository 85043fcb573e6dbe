// Issue 20: a Zoom record as content. Expected bytes are written out by hand from RFC 8785 (JCS) and the issue's
// list of secrets, never computed with the code under test.
import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { recordBytes, recordEvent } from '../../src/connectors/zoom/record.ts';

const text = (v: unknown) => recordBytes(v).toString('utf8');

async function read(body: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of body) parts.push(Buffer.from(c));
  return Buffer.concat(parts);
}

describe('a Zoom record as content', () => {
  it('is RFC 8785 canonical JSON: keys sorted by UTF-16 code units at every level, no whitespace, ECMAScript numbers', () => {
    // RFC 8785 §3.2.3's sorting example (keys in UTF-16 code-unit order: "\r" < "1" < "\u0080" < "ö" < "€" < "😂" < "דּ").
    const sorting = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    expect(text(sorting)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
    // RFC 8785 §3.2.2.3 number examples, and the escaping of §3.2.2.2.
    expect(
      text({
        // eslint-disable-next-line no-loss-of-precision -- the literal is the canonicalization test vector as published
        numbers: [333333333.33333329, 1e30, 4.5, 2e-3, 0.000000000000000000000000001, -0],
        s: '\u20ac$\u000f\nA\'B"\\\\"/',
      }),
    ).toBe('{"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27,0],"s":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}');
    expect(text({ b: [{ z: 1, a: null }], a: true })).toBe('{"a":true,"b":[{"a":null,"z":1}]}');
  });

  it('leaves out passwords, passcodes and anything named like a token, and cuts the query off URLs', () => {
    const meeting = {
      uuid: 'u1==',
      password: 'p4ss',
      h323_password: '123456',
      recording_play_passcode: 'abc',
      download_access_token: 'eyJ.secret',
      share_url: 'https://zoom.us/rec/share/xyz?pwd=secret',
      recording_files: [
        {
          id: 'f1',
          download_url: 'https://us02web.zoom.us/rec/download/k?access_token=eyJ.tok&x=1',
          play_url: 'https://zoom.us/rec/play/k#frag',
          file_size: 12,
        },
      ],
      nested: { download_token: 'dt', refresh_token: 'rt', note: 'keeps ?this' },
    };
    expect(text(meeting)).toBe(
      '{"nested":{"note":"keeps ?this"},"recording_files":[{"download_url":"https://us02web.zoom.us/rec/download/k","file_size":12,"id":"f1","play_url":"https://zoom.us/rec/play/k"}],' +
        '"share_url":"https://zoom.us/rec/share/xyz","uuid":"u1=="}',
    );
  });

  it('makes the blob the item content, its SHA-256 the version, application/json its type', async () => {
    const msg = {
      id: 'm1',
      message: 'hello',
      sender: 'a@example.com',
      files: [{ file_id: 'f', download_url: 'https://file.zoom.us/f?jwt=x' }],
    };
    const expected =
      '{"files":[{"download_url":"https://file.zoom.us/f","file_id":"f"}],"id":"m1","message":"hello","sender":"a@example.com"}';
    const ev = recordEvent(
      { kind: 'chat_message', sourceId: 'm1', name: 'n', path: '/p', custodian: 'u', version: 'old', metadata: {} },
      msg,
    );
    expect(ev.item.version).toBe(crypto.createHash('sha256').update(expected).digest('hex'));
    expect(ev.item.size).toBe(Buffer.byteLength(expected));
    expect(ev.item.mimeType).toBe('application/json');
    expect((await read((await ev.content!.open(0, new AbortController().signal)).body)).toString('utf8')).toBe(
      expected,
    );
    // An edit is a new version; the same record read again is the same version.
    expect(recordEvent(ev.item, { ...msg, message: 'hello (edited)' }).item.version).not.toBe(ev.item.version);
    expect(
      recordEvent(ev.item, { sender: msg.sender, files: msg.files, message: msg.message, id: msg.id }).item.version,
    ).toBe(ev.item.version);
  });
});
