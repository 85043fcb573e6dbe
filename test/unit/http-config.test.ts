import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

describe('HTTP edge configuration', () => {
  it('has defaults that cut a trickling client within seconds', () => {
    expect(loadConfig({}).http).toEqual({
      headersTimeoutMs: 10_000,
      bodyTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 10_000,
    });
  });

  it('takes fractions of a second and refuses nonsense, naming the variable', () => {
    expect(loadConfig({ HTTP_BODY_TIMEOUT_SECONDS: '0.5' }).http.bodyTimeoutMs).toBe(500);
    expect(() => loadConfig({ HTTP_BODY_TIMEOUT_SECONDS: '0' })).toThrow(/HTTP_BODY_TIMEOUT_SECONDS/);
    expect(() => loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT_SECONDS: 'soon' })).toThrow(/HTTP_KEEP_ALIVE_TIMEOUT_SECONDS/);
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_SECONDS: '60', HTTP_REQUEST_TIMEOUT_SECONDS: '30' })).toThrow(
      /HTTP_HEADERS_TIMEOUT_SECONDS/,
    );
  });
});
