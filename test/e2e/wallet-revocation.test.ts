import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import type { Grant } from '../../src/connectors/types.ts';
import { jsonOf, pairFlow, startTestApp, tokenFor, type Json, type TestApp } from '../support/app.ts';
import { simulatorEnv } from '../support/scratch-database.ts';

const CB = 'https://client.example/revoke-done';

/**
 * Issue 23 item 6: deleting a wallet revokes its grant at Zoom (`POST /oauth/revoke`, the app's Basic credentials),
 * so the tokens Custody held stop working there; a revocation Zoom refuses does not keep the wallet, and the audit
 * entry says which happened. The real runtime and the Zoom connector, against the Zoom simulator.
 */
describe('DELETE /v1/wallet/{id} revokes the Zoom grant at Zoom', () => {
  let sandbox: ZoomSandbox;
  let t: TestApp;
  let token: string;
  let accountId: string;

  beforeAll(async () => {
    sandbox = await startZoomSandbox({ seed: 23, users: 2, meetingsPerUser: 1, channels: 1 });
    t = await startTestApp({ env: simulatorEnv(sandbox) });
    const client = await t.client('acme', [CB]);
    accountId = client.accountId;
    token = await tokenFor(t.call, { client_id: client.clientId, client_secret: client.clientSecret });
  });

  afterAll(async () => {
    await t?.close();
    await sandbox?.close();
  });

  const post = async (path: string, json: unknown) =>
    (await jsonOf(await t.call(token, 'POST', path, { json }), 201)).onna_id as string;

  /** A paired `conf` collection; returns its id, its wallet's id and the grant Custody keeps for it. */
  async function paired(name: string): Promise<{ collection: string; wallet: string; grant: Grant }> {
    const ws = await post('/v1/workspaces', { name, description: 'revocation' });
    const wallet = await post('/v1/wallet', { name, credential_type_name: 'Datasource', config_type: 'conf' });
    const collection = await post('/v1/collections', {
      name,
      onna_parent_id: ws,
      type: 'conf',
      credential_id: wallet,
    });
    await pairFlow(t.call, token, collection, { type: 'conf', redirectTo: CB, state: name, callbackOrigin: t.url });
    const row = await t.runtime.ctx.repos.wallets.get(accountId, wallet);
    const grant = t.runtime.ctx.sealer.open<Grant>(row!.sealed_grant!);
    expect(grant.access_token && grant.refresh_token).toBeTruthy();
    return { collection, wallet, grant };
  }

  /** What Zoom answers an API call with this access token. */
  const apiStatus = async (accessToken: string) =>
    (await fetch(`${sandbox.apiUrl}/users/me`, { headers: { authorization: `Bearer ${accessToken}` } })).status;
  /** What Zoom's token endpoint answers a refresh with this refresh token. */
  const refreshStatus = async (refreshToken: string) =>
    (
      await fetch(`${sandbox.oauthUrl}/oauth/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${sandbox.clientId}:${sandbox.clientSecret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }).toString(),
      })
    ).status;
  const revocations = () => sandbox.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/oauth/revoke'));

  /** Deletes the collection, then the wallet once the collection's deletion has finished (409 until then). */
  async function deleteBoth(collection: string, wallet: string): Promise<Response> {
    expect((await t.call(token, 'DELETE', `/v1/collections/${collection}`)).status).toBe(204);
    const deadline = Date.now() + 20_000;
    for (;;) {
      const res = await t.call(token, 'DELETE', `/v1/wallet/${wallet}`);
      if (res.status !== 409 || Date.now() > deadline) return res;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const auditOf = async (wallet: string) => {
    const body = await jsonOf(await t.call(token, 'GET', '/v1/audit?action=wallet.delete&limit=200'), 200);
    return (body.items as Json[]).filter((e) => e.target_id === wallet && e.status_code === 204);
  };

  it('the simulator sees the revocation, and neither the access nor the refresh token works there afterwards', async () => {
    const { collection, wallet, grant } = await paired('revoked');
    expect(await apiStatus(grant.access_token!)).toBe(200);
    const before = revocations().length;

    expect((await deleteBoth(collection, wallet)).status).toBe(204);

    const sent = revocations().slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0].listener).toBe('main');
    expect(sent[0].auth).toBe(`Basic ${Buffer.from(`${sandbox.clientId}:${sandbox.clientSecret}`).toString('base64')}`);
    // The token travels in the form body, never in the URL (which proxies and access logs keep).
    expect(sent[0].path).toBe('/oauth/revoke');
    expect(await apiStatus(grant.access_token!)).toBe(401);
    expect(await refreshStatus(grant.refresh_token!)).toBe(400);
    const [entry] = await auditOf(wallet);
    expect(entry.detail).toMatchObject({ config_type: 'conf', provider_revocation: 'revoked' });
    expect((await t.call(token, 'GET', `/v1/wallet/${wallet}`)).status).toBe(404);
  });

  it('a revocation Zoom refuses does not keep the wallet; the audit entry says it failed and holds no token', async () => {
    const { collection, wallet, grant } = await paired('refused');
    // The user removed the app at Zoom meanwhile: every token of the grant is already dead there.
    sandbox.revokeAll();
    const before = revocations().length;

    const res = await deleteBoth(collection, wallet);
    expect(res.status).toBe(204);

    // Both tokens were offered (the access token first), both refused.
    expect(revocations().length - before).toBe(2);
    expect((await t.call(token, 'GET', `/v1/wallet/${wallet}`)).status).toBe(404);
    const entries = await auditOf(wallet);
    expect(entries).toHaveLength(1);
    expect(entries[0].detail).toMatchObject({ provider_revocation: 'failed' });
    const everything = JSON.stringify(await jsonOf(await t.call(token, 'GET', '/v1/audit?limit=200'), 200));
    for (const secret of [grant.access_token!, grant.refresh_token!, sandbox.clientSecret])
      expect(everything).not.toContain(secret);
  });
});
