import crypto from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOAuthStates } from '../../src/auth/oauth-state.ts';
import type { Grant } from '../../src/connectors/types.ts';
import { createSealer } from '../../src/domain/seal.ts';
import { PairingRepo } from '../../src/store/pairings.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';
import {
  consent,
  fakeConfConnector,
  fakeDriveConnector,
  pair,
  startFakeProvider,
  type FakeProvider,
} from '../support/fake-oauth-connector.ts';

const CB = 'https://client.example/cb';
const CB_QUERY = 'https://client.example/cb2?tenant=7&x=a%20b#done';

describe.each(testDatabases.map((d) => [d.name, d] as const))('OAuth pairing on %s', (_name, database) => {
  let t: TestApp;
  let p: FakeProvider;
  let acme: string;
  let globex: string;

  beforeAll(async () => {
    p = await startFakeProvider();
    t = await startTestApp({ database, connectors: () => [fakeConfConnector(p), fakeDriveConnector(p)] });
    acme = await t.token('acme', [CB, CB_QUERY]);
    globex = await t.token('globex', ['https://globex.example/cb']);
  });
  afterAll(async () => {
    await t.close();
    await p.close();
  });
  beforeEach(() => {
    p.calls.authorizationUrl.length = 0;
    p.calls.completeCallback.length = 0;
  });

  const db = () => t.runtime.ctx.db;
  const json = async (res: Response) => (await res.json()) as Record<string, any>;
  const count = async (table: 'pairings' | 'oauth_states') =>
    Number(
      (
        await db()
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const authorize = (bearer: string, type: string, query: Record<string, string>) =>
    t.call(bearer, 'GET', `/v1/collections/authorization_url/${type}?${new URLSearchParams(query)}`);
  const callback = (type: string, query: Record<string, string>) =>
    fetch(`${t.url}/v1/oauth/callback/${type}?${new URLSearchParams(query)}`, { redirect: 'manual' });
  /** The state this server handed to the provider in its latest authorization URL. */
  const issuedState = () => p.calls.authorizationUrl.at(-1)!.state;

  async function collection(bearer: string, type: string) {
    const ws = await json(await t.call(bearer, 'POST', '/v1/workspaces', { json: { name: 'Case', description: 'd' } }));
    const wal = await json(
      await t.call(bearer, 'POST', '/v1/wallet', {
        json: { name: 'W', credential_type_name: 'Datasource', config_type: type },
      }),
    );
    const col = await json(
      await t.call(bearer, 'POST', '/v1/collections', {
        json: { name: 'C', onna_parent_id: ws.onna_id, type, credential_id: wal.onna_id },
      }),
    );
    return { id: col.onna_id as string, wallet: wal.onna_id as string };
  }
  async function storedGrant(walletId: string) {
    const row = await db().selectFrom('wallets').selectAll().where('id', '=', walletId).executeTakeFirstOrThrow();
    return {
      version: row.grant_version,
      sealed: row.sealed_grant,
      grant: row.sealed_grant ? t.runtime.ctx.sealer.open<Grant>(row.sealed_grant) : null,
    };
  }
  function expectStateError(body: Record<string, any>) {
    expect(body).toMatchObject({ code: '00400_bad_request', source: { pointer: '/querystring/state' } });
  }

  it('redirects a conf authorization to the provider with a signed state, PKCE S256 and our callback URI', async () => {
    const res = await authorize(acme, 'conf', { redirect_to: CB, state: 'xyz' });
    expect(res.status).toBe(302);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(`${p.url}/oauth/authorize`);
    const input = p.calls.authorizationUrl.at(-1)!;
    expect(input.redirectUri).toBe(`${t.config.publicUrl}/v1/oauth/callback/conf`);
    expect(input.codeChallenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(input.scopesType).toBeUndefined();
    expect(location.searchParams.get('state')).toBe(input.state);
    // Neither the client's redirect nor its state is trusted from the provider: both are inside the signed state.
    expect(input.state).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);

    const back = await callback('conf', { code: 'c1', state: input.state });
    expect(back.status).toBe(302);
    const verifier = p.calls.completeCallback.at(-1)!.codeVerifier;
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
    expect(crypto.createHash('sha256').update(verifier).digest('base64url')).toBe(input.codeChallenge);
    expect(p.calls.completeCallback.at(-1)!.redirectUri).toBe(input.redirectUri);
  });

  it('answers an edrive authorization with 200 {authorization_url}', async () => {
    const res = await authorize(acme, 'edrive', { redirect_to: CB });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(Object.keys(body)).toEqual(['authorization_url']);
    expect(new URL(body.authorization_url).searchParams.get('state')).toBe(issuedState());
  });

  it('accepts only the scope sets the connector declares', async () => {
    expect((await authorize(acme, 'conf', { redirect_to: CB, scopes_type: 'preservation' })).status).toBe(302);
    expect(p.calls.authorizationUrl.at(-1)!.scopesType).toBe('preservation');
    const bad = await authorize(acme, 'conf', { redirect_to: CB, scopes_type: 'everything' });
    expect(bad.status).toBe(400);
    expect(await json(bad)).toMatchObject({ source: { pointer: '/querystring/scopes_type' } });
  });

  it('rejects a redirect_to off the allowlist (exact match, per account) with 400 and records no state', async () => {
    const before = await count('oauth_states');
    for (const redirect of [
      `${CB}/deeper`,
      `${CB}?x=1`,
      'https://evil.example/cb',
      'https://globex.example/cb',
      'HTTPS://client.example/cb',
    ]) {
      const res = await authorize(acme, 'conf', { redirect_to: redirect });
      expect(res.status).toBe(400);
      const body = await json(res);
      expect(body).toMatchObject({ code: '00400_bad_request', source: { pointer: '/querystring/redirect_to' } });
      expect(body.id).toBe(res.headers.get('x-correlation-id'));
    }
    expect((await authorize(acme, 'conf', {})).status).toBe(400);
    expect(await count('oauth_states')).toBe(before);
    expect(p.calls.authorizationUrl).toHaveLength(0);
  });

  it('rejects an unknown type with 400 and an unauthenticated caller with 401', async () => {
    const res = await authorize(acme, 'ebox', { redirect_to: CB });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ source: { pointer: '/params/type' } });
    expect((await authorize('nope', 'conf', { redirect_to: CB })).status).toBe(401);
  });

  it('pairs a conf collection: one-time code and client state back to redirect_to, grant sealed in the wallet', async () => {
    const col = await collection(acme, 'conf');
    await authorize(acme, 'conf', { redirect_to: CB, state: 'client-42' });
    const back = await callback('conf', { code: 'alpha', state: issuedState() });
    expect(back.status).toBe(302);
    expect(back.headers.get('cache-control')).toBe('no-store');
    const location = new URL(back.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(CB);
    expect([...location.searchParams.keys()].sort()).toEqual(['code', 'state']);
    expect(location.searchParams.get('state')).toBe('client-42');
    const code = location.searchParams.get('code')!;
    expect(code.length).toBeGreaterThanOrEqual(40);

    // The pending pairing holds the grant sealed; the code itself is stored only as a hash.
    const rows = await db().selectFrom('pairings').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(code);
    expect(JSON.stringify(rows)).not.toMatch(/"at-|"rt-/);

    expect((await pair(t, acme, col.id, code)).status).toBe(204);
    const stored = await storedGrant(col.wallet);
    expect(stored.sealed).not.toMatch(/at-|rt-/);
    expect(stored.grant).toMatchObject({ account_id: 'acct-alpha', access_token: expect.stringMatching(/^at-/) });
    const wallet = await json(await t.call(acme, 'GET', `/v1/wallet/${col.wallet}`));
    expect(wallet).toMatchObject({ paired: true, paired_datetime: expect.any(String) });
    expect(await json(await t.call(acme, 'GET', `/v1/collections/${col.id}`))).toMatchObject({
      credentials_paired: true,
    });
    // The consumed pairing keeps no grant.
    expect(
      (await db().selectFrom('pairings').select('sealed_grant').where('used_at', 'is not', null).execute()).every(
        (r) => r.sealed_grant === '',
      ),
    ).toBe(true);
  });

  it('appends to a redirect_to that already has a query string and a fragment, and omits an absent client state', async () => {
    await authorize(acme, 'conf', { redirect_to: CB_QUERY });
    const back = await callback('conf', { code: 'q', state: issuedState() });
    const location = back.headers.get('location')!;
    expect(location).toMatch(/^https:\/\/client\.example\/cb2\?tenant=7&x=a%20b&code=[A-Za-z0-9_-]+#done$/);
  });

  it('rejects tampered, forged, foreign-type and missing states with 400 and stores nothing', async () => {
    await authorize(acme, 'conf', { redirect_to: CB, state: 's' });
    const good = issuedState();
    const [body, sig] = good.split('.') as [string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
    const swapped = Buffer.from(JSON.stringify({ ...payload, r: 'https://evil.example/cb' })).toString('base64url');
    const forgedSealer = createSealer('another-key-'.padEnd(40, 'y'));
    const before = await count('pairings');
    const attempts: Record<string, string>[] = [
      { code: 'x', state: `${swapped}.${sig}` },
      { code: 'x', state: `${body}.${sig.slice(0, -2)}AA` },
      { code: 'x', state: `${swapped}.${forgedSealer.sign(`oauth-state:v1:${swapped}`)}` },
      { code: 'x', state: 'garbage' },
      { code: 'x' },
      { error: 'access_denied' },
    ];
    for (const query of attempts) {
      const res = await callback('conf', query);
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expectStateError(await json(res));
    }
    // A conf state presented at the edrive callback.
    expectStateError(await json(await callback('edrive', { admin_consent: 'True', tenant: 't', state: good })));
    expect(p.calls.completeCallback).toHaveLength(0);
    expect(await count('pairings')).toBe(before);
    // None of that burned the genuine state.
    expect((await callback('conf', { code: 'ok', state: good })).status).toBe(302);
  });

  it('rejects a replayed state and an expired one with 400', async () => {
    await authorize(acme, 'conf', { redirect_to: CB });
    const state = issuedState();
    expect((await callback('conf', { code: 'once', state })).status).toBe(302);
    const before = await count('pairings');
    const replay = await callback('conf', { code: 'twice', state });
    expect(replay.status).toBe(400);
    expect((await json(replay)).detail).toMatch(/already used/);

    const { accountId } = await t.client('acme');
    const past = createOAuthStates({
      sealer: t.runtime.ctx.sealer,
      pairings: new PairingRepo(db()),
      clock: () => new Date(Date.now() - 11 * 60_000),
    });
    const old = await past.issue({ accountId, type: 'conf', redirectTo: CB });
    const expired = await callback('conf', { code: 'late', state: old.state });
    expect(expired.status).toBe(400);
    expect((await json(expired)).detail).toMatch(/expired/);
    expect(await count('pairings')).toBe(before);
  });

  it('lets exactly one of two concurrent callbacks with the same state through', async () => {
    await authorize(acme, 'conf', { redirect_to: CB });
    const state = issuedState();
    const results = await Promise.all([
      callback('conf', { code: 'r1', state }),
      callback('conf', { code: 'r2', state }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([302, 400]);
  });

  it("relays the provider's error before anything else, even with admin_consent=True, and burns the state", async () => {
    await authorize(acme, 'edrive', { redirect_to: CB, state: 'st' });
    const state = issuedState();
    const before = await count('pairings');
    const back = await callback('edrive', {
      admin_consent: 'True',
      tenant: 'tenant-1',
      error: 'consent_required',
      error_description: 'AADSTS65004: The resource owner or authorization server denied the request.',
      state,
    });
    expect(back.status).toBe(302);
    const location = new URL(back.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(CB);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      error: 'consent_required',
      error_description: 'AADSTS65004: The resource owner or authorization server denied the request.',
      state: 'st',
    });
    expect(p.calls.completeCallback).toHaveLength(0);
    expect(await count('pairings')).toBe(before);
    expect((await callback('edrive', { admin_consent: 'True', tenant: 'tenant-1', state })).status).toBe(400);
  });

  it("redirects with the provider's refusal of the code, and hides unexpected failures", async () => {
    await authorize(acme, 'conf', { redirect_to: CB, state: 'k' });
    const refused = new URL(
      (await callback('conf', { code: 'refused', state: issuedState() })).headers.get('location')!,
    );
    expect(Object.fromEntries(refused.searchParams)).toEqual({
      error: 'invalid_grant',
      error_description: 'The authorization code is invalid or expired.',
      state: 'k',
    });

    await authorize(acme, 'conf', { redirect_to: CB, state: 'k' });
    const boom = await callback('conf', { code: 'boom', state: issuedState() });
    expect(boom.status).toBe(302);
    const location = boom.headers.get('location')!;
    expect(new URL(location).searchParams.get('error')).toBe('server_error');
    expect(location).not.toMatch(/s3cr3t|10\.0\.0\.1/);
  });

  it('accepts a pairing code once, within 10 minutes, in its own account, for its own type', async () => {
    const conf = await collection(acme, 'conf');
    const drive = await collection(acme, 'edrive');
    const foreign = await collection(globex, 'conf');
    const code = await consent(t, acme, 'conf', { code: 'one' }, CB);
    const expectBadCode = async (res: Response) => {
      expect(res.status).toBe(400);
      expect(await json(res)).toMatchObject({
        code: '00400_bad_request',
        source: { pointer: '/querystring/auth_code' },
      });
    };

    await expectBadCode(await pair(t, globex, foreign.id, code));
    await expectBadCode(await pair(t, acme, drive.id, code));
    await expectBadCode(await pair(t, acme, conf.id, 'not-a-code'));
    expect((await pair(t, acme, foreign.id, code)).status).toBe(404);
    expect((await t.call(acme, 'POST', `/v1/collections/${conf.id}/pair_credentials`)).status).toBe(400);
    expect((await storedGrant(foreign.wallet)).sealed).toBeNull();
    expect((await storedGrant(drive.wallet)).sealed).toBeNull();

    // The failed attempts above did not burn it.
    expect((await pair(t, acme, conf.id, code)).status).toBe(204);
    await expectBadCode(await pair(t, acme, conf.id, code));

    const late = await consent(t, acme, 'conf', { code: 'late' }, CB);
    await db()
      .updateTable('pairings')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('used_at', 'is', null)
      .execute();
    await expectBadCode(await pair(t, acme, conf.id, late));
    expect((await storedGrant(conf.wallet)).grant).toMatchObject({ account_id: 'acct-one' });
  });

  it('lets exactly one of two concurrent pair_credentials calls with the same code succeed', async () => {
    const col = await collection(acme, 'conf');
    const code = await consent(t, acme, 'conf', { code: 'race' }, CB);
    const results = await Promise.all([pair(t, acme, col.id, code), pair(t, acme, col.id, code)]);
    expect(results.map((r) => r.status).sort()).toEqual([204, 400]);
  });

  it('pairing again replaces the grant and leaves the sync status alone', async () => {
    const col = await collection(acme, 'conf');
    expect((await pair(t, acme, col.id, await consent(t, acme, 'conf', { code: 'first' }, CB))).status).toBe(204);
    const first = await storedGrant(col.wallet);
    // arranged by hand: the state table has no move from `created` to `error` (a run would have made it)
    await t.runtime.ctx.db
      .updateTable('collections')
      .set({ sync_status: 'error', status_reason: 'the provider revoked the grant: pair again' })
      .where('id', '=', col.id)
      .execute();
    expect((await pair(t, acme, col.id, await consent(t, acme, 'conf', { code: 'second' }, CB))).status).toBe(204);
    const second = await storedGrant(col.wallet);
    expect(second.grant).toMatchObject({ account_id: 'acct-second' });
    expect(second.grant!.access_token).not.toBe(first.grant!.access_token);
    expect(second.version).toBeGreaterThan(first.version);
    expect(await json(await t.call(acme, 'GET', `/v1/collections/${col.id}`))).toMatchObject({
      sync_status: 'error',
      credentials_paired: true,
    });
  });

  it('pairs an edrive collection through admin consent', async () => {
    const col = await collection(acme, 'edrive');
    const code = await consent(t, acme, 'edrive', { admin_consent: 'True', tenant: 'tenant-42' }, CB);
    expect((await pair(t, acme, col.id, code)).status).toBe(204);
    expect((await storedGrant(col.wallet)).grant).toEqual({ tenant_id: 'tenant-42' });
  });
});
