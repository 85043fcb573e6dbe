import pino from 'pino';
import { request } from 'undici';
import { hashClientSecret } from '../src/auth/service-tokens.ts';
import type { Config } from '../src/config.ts';
import { createConnectors } from '../src/connectors/index.ts';
import { randomToken } from '../src/domain/seal.ts';
import { createRuntime, type Runtime } from '../src/runtime.ts';

/** Walks the public API as a client would: token, workspace, wallet, collection, OAuth pairing. */
export class ApiClient {
  constructor(
    readonly base: string,
    readonly token = '',
  ) {}

  static async connect(base: string, clientId: string, clientSecret: string): Promise<ApiClient> {
    const res = await request(`${base}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: clientSecret,
      }).toString(),
    });
    const body = (await res.body.json()) as { access_token: string };
    return new ApiClient(base, body.access_token);
  }

  async call<T = any>(
    method: string,
    path: string,
    json?: unknown,
  ): Promise<{ status: number; body: T; location?: string }> {
    const res = await request(`${this.base}${path}`, {
      method: method as 'GET',
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(json !== undefined && { 'content-type': 'application/json' }),
      },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const text = await res.body.text();
    const location = res.headers.location as string | undefined;
    return { status: res.statusCode, body: (text ? JSON.parse(text) : undefined) as T, location };
  }

  async collection(type: 'conf' | 'edrive'): Promise<string> {
    const ws = await this.call('POST', '/v1/workspaces', { name: 'bench', description: 'bench' });
    const wal = await this.call('POST', '/v1/wallet', {
      name: type,
      credential_type_name: 'Datasource',
      config_type: type,
    });
    const col = await this.call('POST', '/v1/collections', {
      name: type,
      onna_parent_id: ws.body.onna_id,
      type,
      credential_id: wal.body.onna_id,
    });
    return col.body.onna_id;
  }

  /** Follows the provider's (simulated) consent redirects back to redirect_to and pairs the code. */
  async pair(collectionId: string, type: 'conf' | 'edrive', redirectTo: string): Promise<void> {
    const start = await this.call(
      'GET',
      `/v1/collections/authorization_url/${type}?redirect_to=${encodeURIComponent(redirectTo)}&state=bench`,
    );
    let url = type === 'conf' ? start.location! : start.body.authorization_url;
    for (let hop = 0; hop < 5 && !url.startsWith(redirectTo); hop++) {
      const res = await request(url, { method: 'GET' });
      await res.body.dump();
      url = new URL(res.headers.location as string, url).toString();
    }
    const code = new URL(url).searchParams.get('code');
    if (!code) throw new Error(`pairing failed: ${url}`);
    const paired = await this.call(
      'POST',
      `/v1/collections/${collectionId}/pair_credentials?auth_code=${encodeURIComponent(code)}`,
    );
    if (paired.status !== 204) throw new Error(`pair_credentials: ${paired.status}`);
  }

  async waitFor(collectionId: string, statuses: string[], timeoutMs: number): Promise<Record<string, any>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const col = await this.call('GET', `/v1/collections/${collectionId}`);
      if (statuses.includes(col.body.sync_status)) return col.body;
      if (Date.now() > deadline) throw new Error(`timed out in ${col.body.sync_status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * The service in this process on a free port, with an API client of account `bench` allowed to send browsers back
 * to `redirect`. PUBLIC_URL is pointed at the port once it is known, so OAuth callbacks come back here.
 */
export async function startBenchApi(
  config: Config,
  opts: { workers: boolean; redirect: string },
): Promise<{ runtime: Runtime; base: string; api: ApiClient }> {
  const runtime = await createRuntime(config, {
    log: pino({ level: 'silent' }),
    connectors: createConnectors(config),
    workers: opts.workers,
  });
  try {
    await runtime.app.listen({ host: '127.0.0.1', port: 0 });
    const address = runtime.app.server.address();
    const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    Object.assign(config, { publicUrl: base });
    const { accounts } = runtime.ctx.repos;
    const accountId = await accounts.ensureAccount('bench');
    await accounts.allowRedirect(accountId, opts.redirect);
    const secret = randomToken();
    const api = await ApiClient.connect(base, await accounts.createClient(accountId, hashClientSecret(secret)), secret);
    return { runtime, base, api };
  } catch (err) {
    await runtime.close();
    throw err;
  }
}
