import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFaultedBody } from '../fault-rates.ts';
import { downloadFault } from './fault-hooks.ts';
import { recordRequest } from './state.ts';
import type { SandboxState } from './state.ts';
import { formatRetryAfter } from './throttle.ts';
import type { MsDrive, MsItem } from './types.ts';

interface TempAuth {
  /** drive id, item id, expiry (epoch ms), app id (whose budget the download is charged to) */
  d: string;
  i: string;
  e: number;
  a: string;
}

/** A pre-authenticated SharePoint-style URL on the second origin; no Authorization header is needed. */
export function makeDownloadUrl(
  state: SandboxState,
  drive: MsDrive,
  item: MsItem,
  appId: string,
  lifetimeSeconds = state.downloadUrlLifetimeSeconds,
): string {
  const tempauth = state.keys.seal({
    d: drive.id,
    i: item.id,
    e: state.now().getTime() + lifetimeSeconds * 1000,
    a: appId,
  } satisfies TempAuth);
  const personal = new URL(drive.webUrl).pathname.replace(/\/Documents$/, '');
  return `${state.downloadOrigin}${personal}/_layouts/15/download.aspx?UniqueId=${item.uniqueId.toLowerCase()}&Translate=false&tempauth=${tempauth}&ApiVersion=2.0`;
}

type Range = { start: number; end: number } | 'unsatisfiable' | undefined;

function parseRange(header: string | undefined, size: number): Range {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function handle(state: SandboxState, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://download.invalid');
  const scheme = req.headers.authorization?.split(' ')[0];
  const record = {
    method: req.method ?? 'GET',
    path: url.pathname,
    host: 'download' as const,
    ...(scheme ? { auth: scheme } : {}),
    status: 0,
    at: Date.now(),
  };
  recordRequest(state, record);
  res.on('close', () => (record.status = res.statusCode));
  res.setHeader('request-id', randomUUID());
  res.setHeader('SPRequestGuid', res.getHeader('request-id') as string);

  const fault = downloadFault(state, req, res);
  if (fault === true) return;
  if (!/\/_layouts\/15\/download\.aspx$/.test(url.pathname) || (req.method !== 'GET' && req.method !== 'HEAD')) {
    return sendJson(res, 404, { error: { code: 'itemNotFound', message: 'The resource could not be found.' } });
  }
  // The URL is the credential. A Graph bearer token is for another audience, and SharePoint refuses it.
  if (req.headers.authorization) {
    return sendJson(res, 401, {
      error_description:
        "Invalid audience Uri 'https://graph.microsoft.com'. The download URL is pre-authenticated; do not send an Authorization header.",
    });
  }
  const auth = state.keys.unseal<TempAuth>(url.searchParams.get('tempauth') ?? '');
  if (!auth || state.faults.expireDownloadUrls || auth.e <= state.now().getTime()) {
    return sendJson(res, 401, { error_description: 'The tempauth token is invalid or has expired.' });
  }
  const found = state.model.driveById(auth.d);
  const listed = found?.drive.items.get(auth.i);
  if (state.variance && found && listed) {
    if (
      state.variance.vanish(state.model, found.drive.id, listed, new Date(state.now()).toISOString().slice(0, 19) + 'Z')
    ) {
      return sendJson(res, 404, { error: { code: 'itemNotFound', message: 'The resource could not be found.' } });
    }
    if (state.variance.isFailing(listed)) {
      res.setHeader('x-virus-infected', 'true');
      return sendJson(res, 403, {
        error: { code: 'malwareDetected', message: 'Malware detected in the file. Download is blocked.' },
      });
    }
  }
  const item = found ? state.model.liveItem(found.drive, auth.i) : undefined;
  const content = item ? state.model.contents.get(item.id) : undefined;
  if (!found || !item || !content)
    return sendJson(res, 404, { error: { code: 'itemNotFound', message: 'The resource could not be found.' } });

  const budget = state.budget.charge(`${auth.a}/${state.model.tenant.id}`, 1, state.now().getTime());
  if (!budget.ok) {
    res.setHeader('retry-after', formatRetryAfter(budget.retryAfterSeconds));
    return sendJson(res, 429, { error: { code: 'activityLimitReached', message: 'The request has been throttled' } });
  }

  const size = content.length;
  const range = state.faults.ignoreRange ? undefined : parseRange(req.headers.range, size);
  res.setHeader('accept-ranges', 'bytes');
  res.setHeader('etag', `"{${item.uniqueId}},${item.eTagVersion}"`);
  res.setHeader('last-modified', new Date(item.lastModifiedDateTime).toUTCString());
  res.setHeader('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(item.name)}`);
  if (range === 'unsatisfiable') {
    res.writeHead(416, { 'content-range': `bytes */${size}`, 'content-length': 0 });
    res.end();
    return;
  }
  let body = range ? content.subarray(range.start, range.end + 1) : content;
  const headers: Record<string, string | number> = {
    'content-type': item.mimeType ?? 'application/octet-stream',
    'content-length': body.length,
  };
  if (range) headers['content-range'] = `bytes ${range.start}-${range.end}/${size}`;
  res.writeHead(range ? 206 : 200, headers);
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  if (state.faults.corruptDownloads > 0 && body.length > 0) {
    state.faults.corruptDownloads -= 1;
    body = Buffer.from(body);
    body[body.length >> 1] ^= 0x5a;
  }
  if (state.faults.resetConnections > 0) {
    state.faults.resetConnections -= 1;
    return writeFaultedBody(res, body, 'cut_body', 0);
  }
  if (fault) return writeFaultedBody(res, body, fault, state.faults.dice?.rates.stallMs ?? 0);
  res.end(body);
}

export async function startDownloadServer(
  state: SandboxState,
  port: number,
): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => handle(state, req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: actual } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${actual}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
