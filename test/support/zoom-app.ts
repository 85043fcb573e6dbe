import { afterAll, beforeAll } from 'vitest';
import { startZoomSandbox, type ZoomSandboxOptions, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { zoomEnv } from '../connectors/zoom-harness.ts';
import { startTestApp, type TestApp } from './app.ts';
import type { TestDatabase } from './databases.ts';

export interface ZoomApp {
  sandbox: ZoomSandbox;
  t: TestApp;
  /** A token of account `acme`, allowed to send browsers back to the callback. */
  token: string;
  /** The API as `acme`, a JSON body when one is given. */
  call(method: string, path: string, body?: unknown): ReturnType<TestApp['call']>;
}

/**
 * A Zoom simulator and the service in front of it for one describe block: started before its tests, closed after.
 * The fields are set once the block's tests run.
 */
export function useZoomApp(
  database: TestDatabase,
  sandboxOptions: ZoomSandboxOptions,
  opts: { callback: string; env?: Record<string, string> },
): ZoomApp {
  const z = {
    call: (method: string, path: string, body?: unknown) =>
      z.t.call(z.token, method, path, body === undefined ? {} : { json: body }),
  } as ZoomApp;
  beforeAll(async () => {
    z.sandbox = await startZoomSandbox(sandboxOptions);
    z.t = await startTestApp({ database, env: zoomEnv(z.sandbox, opts.env) });
    z.token = await z.t.token('acme', [opts.callback]);
  });
  afterAll(async () => {
    await z.t?.close();
    await z.sandbox?.close();
  });
  return z;
}
