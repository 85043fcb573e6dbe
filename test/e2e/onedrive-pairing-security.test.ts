// edrive pairing binds the tenant to the administrator who went through the flow: the forged callbacks of the
// security review, and their variants, pair nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import type { Grant } from '../../src/connectors/types.ts';
import { jsonOf, newCollection, startTestApp, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';
import { microsoftEnv } from '../support/sandbox-env.ts';

const VICTIM_CB = 'https://victim.example/cb';
const ATTACKER_CB = 'https://attacker.example/cb';

describe.each(testDatabases.map((d) => [d.name, d] as const))('edrive pairing security on %s', (_name, database) => {
  let sandbox: MicrosoftSandbox;
  let t: TestApp;
  let victim: string;
  let attacker: string;

  beforeAll(async () => {
    sandbox = await startMicrosoftSandbox({ seed: 3, users: 3 });
    t = await startTestApp({
      database,
      workers: false,
      env: microsoftEnv(sandbox),
    });
    victim = await t.token('victim', [VICTIM_CB]);
    attacker = await t.token('attacker', [ATTACKER_CB]);
  });

  afterAll(async () => {
    await t?.close();
    await sandbox?.close();
  });

  const db = () => t.runtime.ctx.db;
  const pairings = async () =>
    Number(
      (
        await db()
          .selectFrom('pairings')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const ourCallback = (url: URL) =>
    url.origin === new URL(t.config.publicUrl).origin && url.pathname.startsWith('/v1/oauth/callback/');
  /** Our callback as the browser reaches it (PUBLIC_URL names port 0 in tests). */
  const callbackUrl = (url: URL) => `${t.url}${url.pathname}${url.search}`;
  const callback = (type: string, query: Record<string, string>) =>
    fetch(`${t.url}/v1/oauth/callback/${type}?${new URLSearchParams(query)}`, { redirect: 'manual' });

  async function authorizationUrl(bearer: string, redirectTo: string, state?: string): Promise<URL> {
    const query = new URLSearchParams({ redirect_to: redirectTo, ...(state !== undefined && { state }) });
    return new URL(
      (await jsonOf(await t.call(bearer, 'GET', `/v1/collections/authorization_url/edrive?${query}`), 200))
        .authorization_url,
    );
  }

  /**
   * The browser: follows redirects through the sandbox and our callback until it leaves both (redirect_to) or
   * `stopAt` says so. Returns every URL it was sent to.
   */
  async function browse(start: URL, stopAt?: (url: URL) => boolean): Promise<URL[]> {
    const hops = [start];
    let url = start;
    for (let i = 0; i < 8; i++) {
      if (stopAt?.(url)) return hops;
      const res = await fetch(ourCallback(url) ? callbackUrl(url) : url, { redirect: 'manual' });
      if (res.status !== 302) throw new Error(`${url.pathname} answered ${res.status}: ${await res.text()}`);
      url = new URL(res.headers.get('location')!);
      hops.push(url);
      if (!ourCallback(url) && url.origin !== sandbox.loginUrl) return hops;
    }
    throw new Error('too many redirects');
  }

  async function signIn(
    bearer: string,
    redirectTo: string,
    extra: Record<string, string> = {},
    state?: string,
  ): Promise<URL> {
    const start = await authorizationUrl(bearer, redirectTo, state);
    for (const [k, v] of Object.entries(extra)) start.searchParams.set(k, v);
    return start;
  }

  const atConsent = (url: URL) => url.pathname.endsWith('/v2.0/adminconsent');
  const pair = (bearer: string, collectionId: string, code: string) =>
    t.call(bearer, 'POST', `/v1/collections/${collectionId}/pair_credentials?auth_code=${encodeURIComponent(code)}`);

  async function storedGrant(collectionId: string): Promise<Grant | null> {
    const { wallet_id } = await db()
      .selectFrom('collections')
      .select('wallet_id')
      .where('id', '=', collectionId)
      .executeTakeFirstOrThrow();
    const { sealed_grant } = await db()
      .selectFrom('wallets')
      .select('sealed_grant')
      .where('id', '=', wallet_id)
      .executeTakeFirstOrThrow();
    return sealed_grant ? t.runtime.ctx.sealer.open<Grant>(sealed_grant) : null;
  }

  it('pairs when the administrator signs in, then consents for the tenant they signed in to', async () => {
    const col = await newCollection(t.call, victim, 'edrive', 'Victim');
    const hops = await browse(await signIn(victim, VICTIM_CB, {}, 'client-1'));
    expect(
      hops.map((u) =>
        ourCallback(u) ? 'callback' : u.origin === sandbox.loginUrl ? u.pathname : u.origin + u.pathname,
      ),
    ).toEqual([
      '/organizations/oauth2/v2.0/authorize',
      'callback',
      `/${sandbox.tenantId}/v2.0/adminconsent`,
      'callback',
      VICTIM_CB,
    ]);
    // The consent step has a state of its own, not the one the sign-in used.
    expect(hops[2].searchParams.get('state')).not.toBe(hops[0].searchParams.get('state'));
    const landed = hops.at(-1)!;
    expect(landed.searchParams.get('state')).toBe('client-1');
    expect((await pair(victim, col, landed.searchParams.get('code')!)).status).toBe(204);
    expect(await storedGrant(col)).toMatchObject({ tenant_id: sandbox.tenantId });
    const users = await jsonOf(await t.call(victim, 'GET', `/v1/collections/${col}/users`), 200);
    expect(users.entries.length).toBeGreaterThan(0);
  });

  it("refuses the review's forged callback: another account naming a consented tenant gets an error and no code", async () => {
    expect(sandbox.consentGranted).toBe(true);
    const col = await newCollection(t.call, attacker, 'edrive', 'Attacker');
    const state = (await authorizationUrl(attacker, ATTACKER_CB, 'mine')).searchParams.get('state')!;
    const before = await pairings();
    const forged = await callback('edrive', { admin_consent: 'True', tenant: sandbox.tenantId, state });
    expect(forged.status).toBe(302);
    const landed = new URL(forged.headers.get('location')!);
    expect(landed.origin + landed.pathname).toBe(ATTACKER_CB);
    expect(landed.searchParams.get('code')).toBeNull();
    expect(landed.searchParams.get('error')).toBe('invalid_request');
    expect(landed.searchParams.get('state')).toBe('mine');
    expect(await pairings()).toBe(before);
    // The state is burned, and the attacker's collection is not paired.
    expect((await callback('edrive', { admin_consent: 'True', tenant: sandbox.tenantId, state })).status).toBe(400);
    expect(await storedGrant(col)).toBeNull();
    expect((await t.call(attacker, 'GET', `/v1/collections/${col}/users`)).status).toBe(409);
  });

  it("refuses an admin of another organisation who swaps a consented tenant into the consent step's callback", async () => {
    const col = await newCollection(t.call, attacker, 'edrive', 'Swap');
    const hops = await browse(
      await signIn(attacker, ATTACKER_CB, { login_hint: sandbox.otherTenant.adminUpn }, 'swap'),
      atConsent,
    );
    const consentUrl = hops.at(-1)!;
    expect(consentUrl.pathname).toBe(`/${sandbox.otherTenant.id}/v2.0/adminconsent`);
    const state = consentUrl.searchParams.get('state')!;
    const before = await pairings();

    const forged = await callback('edrive', { admin_consent: 'True', tenant: sandbox.tenantId, state });
    const landed = new URL(forged.headers.get('location')!);
    expect(landed.origin + landed.pathname).toBe(ATTACKER_CB);
    expect(landed.searchParams.get('code')).toBeNull();
    expect(landed.searchParams.get('error')).toBe('access_denied');
    expect(landed.searchParams.get('error_description')).toMatch(
      /another tenant than the one the administrator signed in to/,
    );
    expect(await pairings()).toBe(before);
    expect((await callback('edrive', { admin_consent: 'True', tenant: sandbox.otherTenant.id, state })).status).toBe(
      400,
    );
    expect(await storedGrant(col)).toBeNull();

    // Going through honestly, that admin pairs their own tenant, and only that.
    const honest = await browse(await signIn(attacker, ATTACKER_CB, { login_hint: sandbox.otherTenant.adminUpn }));
    expect((await pair(attacker, col, honest.at(-1)!.searchParams.get('code')!)).status).toBe(204);
    expect(await storedGrant(col)).toMatchObject({ tenant_id: sandbox.otherTenant.id });
  });

  it('refuses a member of the tenant who is not an administrator before any consent step', async () => {
    const before = await pairings();
    const member = sandbox.tenant.users[1].userPrincipalName;
    const hops = await browse(await signIn(attacker, ATTACKER_CB, { login_hint: member }, 'member'));
    expect(hops.some(atConsent)).toBe(false);
    const landed = hops.at(-1)!;
    expect(landed.origin + landed.pathname).toBe(ATTACKER_CB);
    expect(Object.fromEntries(landed.searchParams)).toMatchObject({ error: 'access_denied', state: 'member' });
    expect(landed.searchParams.get('code')).toBeNull();
    expect(await pairings()).toBe(before);
  });

  it('relays a cancelled sign-in and a denied consent to redirect_to with the client state', async () => {
    const cancelled = (await browse(await signIn(victim, VICTIM_CB, { sandbox_deny: '1' }, 'c1'))).at(-1)!;
    expect(Object.fromEntries(cancelled.searchParams)).toMatchObject({ error: 'access_denied', state: 'c1' });
    expect(cancelled.searchParams.get('code')).toBeNull();

    sandbox.denyConsent = true;
    try {
      const hops = await browse(await signIn(victim, VICTIM_CB, {}, 'c2'));
      expect(hops.some(atConsent)).toBe(true);
      const denied = hops.at(-1)!;
      expect(denied.origin + denied.pathname).toBe(VICTIM_CB);
      expect(Object.fromEntries(denied.searchParams)).toMatchObject({ error: 'consent_required', state: 'c2' });
      expect(denied.searchParams.get('code')).toBeNull();
    } finally {
      sandbox.denyConsent = false;
    }
  });

  it('answers 400 to a tampered, foreign-type or replayed state at either step, without burning the genuine one', async () => {
    const start = await signIn(victim, VICTIM_CB);
    const first = start.searchParams.get('state')!;
    const tamper = (state: string) => `${state.slice(0, -2)}${state.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await callback('edrive', { code: 'x', state: tamper(first) })).status).toBe(400);

    const consentUrl = (await browse(start, atConsent)).at(-1)!;
    const second = consentUrl.searchParams.get('state')!;
    // The sign-in state is spent.
    expect((await callback('edrive', { code: 'again', state: first })).status).toBe(400);
    // Re-signing the consent state's payload with another tenant in its carry needs the key.
    const [body, mac] = second.split('.') as [string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
    expect(payload.c).toEqual({ step: 'consent', tid: sandbox.tenantId });
    const swapped = Buffer.from(
      JSON.stringify({ ...payload, c: { step: 'consent', tid: sandbox.otherTenant.id } }),
    ).toString('base64url');
    for (const state of [`${swapped}.${mac}`, tamper(second)]) {
      const res = await callback('edrive', { admin_consent: 'True', tenant: sandbox.otherTenant.id, state });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ source: { pointer: '/querystring/state' } });
    }
    expect((await callback('conf', { code: 'x', state: second })).status).toBe(400);

    const landed = (await browse(consentUrl)).at(-1)!;
    expect(landed.searchParams.get('code')).toBeTruthy();
    expect((await callback('edrive', { admin_consent: 'True', tenant: sandbox.tenantId, state: second })).status).toBe(
      400,
    );
  });

  it('lets a second account pair a tenant that is already paired elsewhere when its administrator goes through the flow', async () => {
    const other = await t.token('victim-subsidiary', [VICTIM_CB]);
    const col = await newCollection(t.call, other, 'edrive', 'Second');
    const landed = (await browse(await signIn(other, VICTIM_CB))).at(-1)!;
    expect((await pair(other, col, landed.searchParams.get('code')!)).status).toBe(204);
    expect(await storedGrant(col)).toMatchObject({ tenant_id: sandbox.tenantId });
  });
});
