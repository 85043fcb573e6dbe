// Content sources: recording downloads (302 to a file host, failures as 200 + HTML) and in-memory documents.
import { Readable, Transform, pipeline } from 'node:stream';
import { type ProviderHttp } from '../../provider/provider-http.ts';
import { ProviderError } from '../../provider/provider-error.ts';
import { type ContentSource } from '../types.ts';
import { ContentGoneError, ContentRejectedError } from '../../domain/run-failures.ts';

const HTML_START = /^\s*(<!doctype html|<html|<head|<body)/i;

/** Zoom answers a refused download with HTTP 200 and an HTML page ("Only the host can download…"). */
export function looksLikeHtml(firstChunk: Uint8Array): boolean {
  return HTML_START.test(Buffer.from(firstChunk.subarray(0, 256)).toString('latin1'));
}

const htmlReason = 'Zoom answered the download with an HTML page instead of the file (a download refusal)';

/**
 * Which URLs may receive the bearer token: the configured OAuth and API hosts, and subdomains of their domain
 * (real download URLs live on hosts such as us02web.zoom.us). A `download_url` anywhere else is refused, so a
 * tampered or unexpected listing can never carry the account's token to a foreign host.
 */
export function zoomHostCheck(...baseUrls: string[]): (url: string) => boolean {
  const bases = baseUrls.map((u) => new URL(u));
  return (url) => {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return false;
    }
    return bases.some((b) => {
      if (u.protocol !== b.protocol) return false;
      if (u.host === b.host) return true;
      const domain = /^[\d.]+$|^\[/.test(b.hostname) ? null : b.hostname.split('.').slice(-2).join('.');
      return domain !== null && domain.includes('.') && (u.hostname === domain || u.hostname.endsWith(`.${domain}`));
    });
  };
}

/**
 * A recording file behind its `download_url`. ProviderHttp sends the bearer token to the Zoom host only and
 * follows the 302 to the file host without it. Bytes are counted against `file_size` where Zoom states one, so a
 * short body is an error (the engine then resumes it with a Range request).
 */
export function downloadSource(
  http: ProviderHttp,
  url: string,
  expectedSize: number | undefined,
  isZoomHost: (url: string) => boolean,
): ContentSource {
  return {
    async open(offset, signal) {
      if (!isZoomHost(url))
        throw new ContentRejectedError(
          'the download_url does not point at a Zoom host; refused to send credentials there',
        );
      const res = await http
        // Zoom meters its API per endpoint ("Rate Limit Label"); a download_url is no API endpoint, so the bytes
        // take a concurrency slot but none of the account's per-second rate.
        .stream(url, { range: offset > 0 ? { start: offset } : undefined, cost: 0, signal })
        .catch((err: unknown) => {
          // By HTTP semantics, whatever Zoom's code: the file was deleted since the listing named it.
          if (err instanceof ProviderError && err.status === 404)
            throw new ContentGoneError(`Zoom answered 404 for the recording file: ${err.message}`, { cause: err });
          throw err;
        });
      if (/text\/html/i.test(res.headers['content-type'] ?? '')) {
        res.body.on('error', () => undefined).destroy();
        throw new ContentRejectedError(htmlReason);
      }
      const partial = offset > 0 && res.status === 206 && rangeStart(res.headers['content-range']) === offset;
      if (expectedSize === undefined) return { body: res.body, partial };
      return { body: checkLength(res.body, expectedSize - (partial ? offset : 0)), partial };
    },
    rejectIf(firstChunk) {
      return looksLikeHtml(firstChunk) ? htmlReason : null;
    },
  };
}

/** A document already in memory (an AI meeting summary). */
export function bufferSource(bytes: Buffer): ContentSource {
  return {
    async open(offset) {
      return { body: Readable.from([bytes.subarray(Math.min(offset, bytes.length))]), partial: offset > 0 };
    },
  };
}

function rangeStart(contentRange: string | undefined): number | undefined {
  const m = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(contentRange?.trim() ?? '');
  return m ? Number(m[1]) : undefined;
}

function checkLength(body: Readable, expected: number): Readable {
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen > expected) return done(new Error(`the download is longer than the ${expected} bytes Zoom stated`));
      done(null, chunk);
    },
    flush(done) {
      done(seen === expected ? null : new Error(`the download ended after ${seen} of ${expected} bytes`));
    },
  });
  // pipeline destroys the source when the counter is destroyed, which frees the request budget's slot.
  pipeline(body, counter, () => undefined);
  return counter;
}
