import net from 'node:net';

/** One HTTP/1.1 response read off a raw socket. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawExchange {
  responses: RawResponse[];
  /** How the connection ended: the server closed it (FIN), reset it, or it was still open at the deadline. */
  ended: 'closed' | 'reset' | 'open';
  /** Bytes the client managed to write. */
  written: number;
  raw: string;
}

/**
 * Writes `parts` (strings or buffers, each written when the previous one was accepted, `gapMs` apart) on a
 * fresh connection and reads until the server closes it or `waitMs` passes. Never throws. With `readAfterWrite`
 * nothing is read until every part is written, as a client that sends its whole request before reading does.
 */
export function rawExchange(
  url: string,
  parts: Array<string | Buffer>,
  opts: { waitMs?: number; gapMs?: number; readAfterWrite?: boolean } = {},
): Promise<RawExchange> {
  const { hostname, port } = new URL(url);
  const waitMs = opts.waitMs ?? 3000;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let written = 0;
    let ended: RawExchange['ended'] = 'open';
    let finished = false;
    const socket = net.connect(Number(port), hostname);
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(deadline);
      socket.destroy();
      const raw = Buffer.concat(chunks).toString('latin1');
      resolve({ responses: parseResponses(raw), ended, written, raw });
    };
    const deadline = setTimeout(finish, waitMs);
    socket.on('data', (c) => chunks.push(c));
    socket.on('end', () => {
      ended = 'closed';
      finish();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (ended === 'open') ended = err.code === 'ECONNRESET' || err.code === 'EPIPE' ? 'reset' : 'closed';
      // keep reading what already arrived: an EPIPE on write does not lose bytes already received
      setTimeout(finish, 20);
    });
    if (opts.readAfterWrite) socket.pause();
    // eslint-disable-next-line @typescript-eslint/no-misused-promises -- the body cannot reject: it awaits only 'drain'/'close' and timers
    socket.on('connect', async () => {
      for (const part of parts) {
        if (finished || socket.destroyed) return;
        const ok = socket.write(part);
        written += Buffer.byteLength(part);
        if (!ok) await new Promise((r) => socket.once('drain', r).once('close', r));
        if (opts.gapMs) await new Promise((r) => setTimeout(r, opts.gapMs));
      }
      socket.resume();
    });
  });
}

/** Every complete response in `raw` (Content-Length or chunked bodies), in order. */
export function parseResponses(raw: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = raw;
  for (;;) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) return out;
    const [statusLine, ...lines] = rest.slice(0, headEnd).split('\r\n');
    const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
    if (!match) return out;
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const i = line.indexOf(':');
      if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
    }
    let body = '';
    let after = rest.slice(headEnd + 4);
    if (headers['transfer-encoding']?.includes('chunked')) {
      for (;;) {
        const lineEnd = after.indexOf('\r\n');
        if (lineEnd < 0) return out;
        const size = parseInt(after.slice(0, lineEnd), 16);
        if (Number.isNaN(size)) return out;
        after = after.slice(lineEnd + 2);
        if (size === 0) {
          after = after.slice(after.indexOf('\r\n') + 2);
          break;
        }
        if (after.length < size + 2) return out;
        body += after.slice(0, size);
        after = after.slice(size + 2);
      }
    } else {
      const length = Number(match[1]) < 200 ? 0 : Number(headers['content-length'] ?? 0);
      if (after.length < length) return out;
      body = after.slice(0, length);
      after = after.slice(length);
    }
    // interim answers (100 Continue) are not the answer
    if (Number(match[1]) >= 200) out.push({ status: Number(match[1]), headers, body });
    rest = after;
  }
}

/** Problems with a response under the one error shape (empty when it conforms). */
export function errorShapeProblems(res: RawResponse): string[] {
  const problems: string[] = [];
  const id = res.headers['x-correlation-id'];
  if (!id) problems.push('no X-Correlation-ID header');
  let body: Record<string, any>;
  try {
    body = JSON.parse(Buffer.from(res.body, 'latin1').toString('utf8')) as Record<string, any>;
  } catch {
    return [...problems, `body is not JSON: ${res.body.slice(0, 80)}`];
  }
  if (typeof body.code !== 'string' || !body.code.startsWith(`00${res.status}_`)) problems.push(`code ${body.code}`);
  if (body.id !== id) problems.push(`id ${body.id} differs from the header ${id}`);
  for (const k of ['title', 'detail'] as const) if (typeof body[k] !== 'string') problems.push(`no ${k}`);
  if (typeof body.links?.about !== 'string') problems.push('no links.about');
  if (!(body.source === null || typeof body.source?.pointer === 'string')) problems.push('bad source');
  return problems;
}
