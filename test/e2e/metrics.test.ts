import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { freePort } from '../support/process.ts';

describe('METRICS_PORT', () => {
  let app: TestApp;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    app = await startTestApp({ workers: false, env: { METRICS_PORT: String(port) } });
  }, 60_000);
  afterAll(async () => app?.close());

  it('serves the metrics on their own port and not on the API port', async () => {
    const token = await app.token('metrics');
    expect((await app.call(token, 'GET', '/v1/workspaces')).status).toBe(200);
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(
      /^custody_http_request_duration_seconds_count\{route="\/v1\/workspaces",method="GET",status="200"\} 1$/m,
    );
    expect(text).toMatch(/^# TYPE custody_runs gauge$/m);
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    expect((await fetch(`${app.url}/metrics`)).status).toBe(404);
  });
});
