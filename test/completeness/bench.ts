// One running Custody (real runtime, background workers) whose Zoom and Microsoft simulators are replaced by a
// freshly seeded tenant before every property run. The simulators come back on the same ports, so the server's
// ZOOM_* / MS_* settings stay valid; every run pairs a new collection with the new tenant.
import {
  startMicrosoftSandbox,
  type MicrosoftSandbox,
  type MicrosoftSandboxOptions,
} from '../../sandbox/microsoft/index.ts';
import { startZoomSandbox, type ZoomSandbox, type ZoomSandboxOptions } from '../../sandbox/zoom/index.ts';
import { resolveSandboxHosts } from '../../sandbox/zoom/testing.ts';
import type { Connector } from '../../src/connectors/types.ts';
import type { Config } from '../../src/config.ts';
import {
  jsonOf,
  newCollection,
  pairFlow,
  startTestApp,
  type ApiItem,
  type Json,
  type TestApp,
} from '../support/app.ts';
import type { TestDatabase } from '../support/databases.ts';
import { microsoftEnv } from '../support/sandbox-env.ts';

const CB = 'https://client.example/completeness';
const ENDED = ['synced', 'failed', 'error'];

export interface SyncResult {
  collectionId: string;
  collection: Json;
  items: ApiItem[];
  run: Json;
}

export interface BenchOptions {
  database: TestDatabase;
  /** The Zoom simulator's host name (resolved to 127.0.0.1 in this process); default 127.0.0.1. */
  zoomHostname?: string;
  /** Wraps the server's connectors (a test of the test breaks one on purpose). */
  connectors?: (config: Config, real: Connector[]) => Connector[];
}

export class Bench {
  zoom!: ZoomSandbox;
  ms!: MicrosoftSandbox;
  private app!: TestApp;
  private token!: string;
  private ports!: { zoom: [number, number]; ms: [number, number] };
  private runs = 0;
  private zoomHostname?: string;
  private undoResolver?: () => void;

  static async start(opts: BenchOptions): Promise<Bench> {
    const bench = new Bench();
    if (opts.zoomHostname) {
      bench.zoomHostname = opts.zoomHostname;
      bench.undoResolver = await resolveSandboxHosts(opts.zoomHostname);
    }
    bench.zoom = await startZoomSandbox({ users: 1, meetingsPerUser: 0, channels: 0, hostname: bench.zoomHostname });
    bench.ms = await startMicrosoftSandbox({ users: 1, usersWithoutDrive: 0 });
    bench.ports = {
      zoom: [portOf(bench.zoom.oauthUrl), portOf(bench.zoom.downloadOrigin)],
      ms: [portOf(bench.ms.loginUrl), portOf(bench.ms.downloadOrigin)],
    };
    const real = async (config: Config) => (await import('../../src/connectors/index.ts')).createConnectors(config);
    let wrapped: Connector[] | undefined;
    const env = {
      ZOOM_CLIENT_ID: bench.zoom.clientId,
      ZOOM_CLIENT_SECRET: bench.zoom.clientSecret,
      ZOOM_OAUTH_URL: bench.zoom.oauthUrl,
      ZOOM_API_URL: bench.zoom.apiUrl,
      ...microsoftEnv(bench.ms),
      // Every property run polls its collection; the per-token API budget is not what is under test here.
      RATE_LIMIT_DEFAULT_PER_MINUTE: '100000',
    };
    if (opts.connectors) {
      const { loadConfig } = await import('../../src/config.ts');
      const config = loadConfig({ DATA_DIR: '/tmp', CUSTODY_SECRET_KEY: 'x'.repeat(40), ...env });
      wrapped = opts.connectors(config, await real(config));
    }
    bench.app = await startTestApp({ database: opts.database, env, ...(wrapped && { connectors: () => wrapped }) });
    bench.token = await bench.app.token('completeness', [CB]);
    return bench;
  }

  /** A new Zoom tenant on the same ports. */
  async zoomTenant(opts: ZoomSandboxOptions): Promise<ZoomSandbox> {
    await this.zoom.close();
    this.zoom = await startZoomSandbox({
      ...opts,
      hostname: this.zoomHostname,
      port: this.ports.zoom[0],
      downloadPort: this.ports.zoom[1],
    });
    return this.zoom;
  }

  /** A new Microsoft tenant on the same ports. */
  async msTenant(opts: MicrosoftSandboxOptions): Promise<MicrosoftSandbox> {
    await this.ms.close();
    this.ms = await startMicrosoftSandbox({ ...opts, port: this.ports.ms[0], downloadPort: this.ports.ms[1] });
    return this.ms;
  }

  /** Pairs a new collection with the current tenant, saves the filters, starts a run and waits for its end. */
  async sync(type: 'conf' | 'edrive', filters: unknown): Promise<SyncResult> {
    const call = this.app.call;
    const id = await newCollection(call, this.token, type, `${type}-${++this.runs}`);
    await pairFlow(call, this.token, id, {
      type,
      redirectTo: CB,
      state: `s-${this.runs}`,
      callbackOrigin: this.app.url,
    });
    const patch = await call(this.token, 'PATCH', `/v1/collections/${id}`, {
      json: { sync_filters: filters, type_sync: 'one' },
    });
    if (patch.status !== 204)
      throw new Error(`PATCH filters answered ${patch.status}: ${await patch.text()} for ${JSON.stringify(filters)}`);
    const start = await call(this.token, 'POST', `/v1/collections/${id}/start`);
    if (start.status !== 200) throw new Error(`start answered ${start.status}: ${await start.text()}`);
    const collection = await this.app.waitForStatus(this.token, id, ENDED, 60_000);
    const runs = (await jsonOf(await call(this.token, 'GET', `/v1/collections/${id}/runs`), 200)).runs as Json[];
    return { collectionId: id, collection, items: await this.app.items(this.token, id), run: runs[0] };
  }

  /** GET on the server with the bench's token; the JSON body. */
  async get(path: string): Promise<Json> {
    return jsonOf(await this.app.call(this.token, 'GET', path), 200);
  }

  async close(): Promise<void> {
    await this.app?.close();
    await this.zoom?.close();
    await this.ms?.close();
    this.undoResolver?.();
  }
}

function portOf(url: string): number {
  return Number(new URL(url).port);
}
