import { describe, expect, it } from 'vitest';
import { downloadSource, zoomHostCheck } from '../../src/connectors/zoom/content.ts';
import type { ProviderHttp } from '../../src/provider/provider-http.ts';
import { ContentRejectedError } from '../../src/domain/run-failures.ts';

describe('which hosts may receive the Zoom bearer token', () => {
  const real = zoomHostCheck('https://zoom.us', 'https://api.zoom.us/v2');
  const gov = zoomHostCheck('https://zoomgov.com', 'https://api.zoomgov.com/v2');
  const sandbox = zoomHostCheck('http://127.0.0.1:4100', 'http://127.0.0.1:4100/v2');

  it.each([
    ['https://zoom.us/rec/download/abc', true],
    ['https://us02web.zoom.us/rec/download/abc', true],
    ['https://api.zoom.us/v2/x', true],
    ['http://zoom.us/rec/download/abc', false],
    ['https://zoom.us.evil.example/rec', false],
    ['https://evilzoom.us/rec', false],
    ['https://evil.example/zoom.us', false],
    ['not a url', false],
  ])('real Zoom: %s → %s', (url, allowed) => {
    expect(real(url)).toBe(allowed);
  });

  it('follows the configured hosts (Zoom for Government, the simulator)', () => {
    expect(gov('https://zoomgov.com/rec/download/x')).toBe(true);
    expect(gov('https://zoom.us/rec/download/x')).toBe(false);
    expect(sandbox('http://127.0.0.1:4100/rec/download/x')).toBe(true);
    expect(sandbox('http://127.0.0.1:4101/rec/download/x')).toBe(false);
    expect(sandbox('http://127.0.0.2:4100/rec/download/x')).toBe(false);
  });

  it('refuses a download_url on a foreign host without making any request', async () => {
    let requests = 0;
    const http = {
      stream: async () => (requests++, Promise.reject(new Error('must not be called'))),
    } as unknown as ProviderHttp;
    const source = downloadSource(http, 'https://collector.evil.example/steal', 10, real);
    await expect(source.open(0, new AbortController().signal)).rejects.toBeInstanceOf(ContentRejectedError);
    expect(requests).toBe(0);
  });
});
