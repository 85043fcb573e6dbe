// The generic callback route with a connector whose authorization takes two provider steps.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOAuthStates } from '../../src/auth/oauth-state.ts';
import { ProviderAuthError, type Connector, type Grant } from '../../src/connectors/types.ts';
import { PairingRepo } from '../../src/store/pairings.ts';
import { newCollection, startTestApp, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';
import { httpQuirks } from '../../src/provider/quirks.ts';

const CB = 'https://client.example/two-step';
const NEXT = 'https://provider.example/step-two';

type Input = Parameters<Connector['oauth']['completeCallback']>[0];

/** Step one (`code=ok`) continues with a carry; step two turns its code into a grant that shows the carry. */
function twoStepConnector(calls: Input[]): Connector {
  return {
    type: 'conf',
    configType: 'conf',
    kinds: [],
    userAgent: 'custody-tests/two-step',
    quirks: httpQuirks,
    limits: {
      budget: { ratePerSecond: 100, concurrency: 4 },
      retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, giveUpAfterMs: 100 },
    },
    validateFilters: () => [],
    discovery: {},
    async *collect() {},
    oauth: {
      authorizationResponse: 'redirect',
      scopes: { default: [] },
      authorizationUrl: ({ state }) => `https://provider.example/step-one?state=${encodeURIComponent(state)}`,
      async completeCallback(input) {
        calls.push(input);
        if (!input.carried) {
          if (input.query.code !== 'ok') throw new ProviderAuthError('access_denied', 'step one refused');
          return {
            carry: { who: 'alice', org: 'o-1' },
            continueTo: (state) => `${NEXT}?state=${encodeURIComponent(state)}`,
          };
        }
        return {
          who: input.carried.who,
          org: input.carried.org,
          access_token: `at-${input.query.code}`,
        } satisfies Grant;
      },
      refresh: async (grant) => grant,
    },
  };
}

describe.each(testDatabases.map((d) => [d.name, d] as const))(
  'pairing through a provider flow of two steps on %s',
  (_name, database) => {
    let t: TestApp;
    let acme: string;
    let globex: string;
    const calls: Input[] = [];

    beforeAll(async () => {
      t = await startTestApp({ database, workers: false, connectors: () => [twoStepConnector(calls)] });
      acme = await t.token('acme', [CB]);
      globex = await t.token('globex', [CB]);
    });
    afterAll(async () => {
      await t?.close();
    });
    beforeEach(() => {
      calls.length = 0;
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
    const callback = (query: Record<string, string>) =>
      fetch(`${t.url}/v1/oauth/callback/conf?${new URLSearchParams(query)}`, { redirect: 'manual' });
    const locationOf = (res: Response) => new URL(res.headers.get('location')!);

    async function firstState(bearer: string, clientState?: string): Promise<string> {
      const query = new URLSearchParams({ redirect_to: CB, ...(clientState !== undefined && { state: clientState }) });
      const res = await t.call(bearer, 'GET', `/v1/collections/authorization_url/conf?${query}`);
      expect(res.status).toBe(302);
      return locationOf(res).searchParams.get('state')!;
    }

    async function secondState(bearer: string, clientState?: string): Promise<string> {
      const res = await callback({ code: 'ok', state: await firstState(bearer, clientState) });
      expect(res.status).toBe(302);
      const next = locationOf(res);
      expect(next.origin + next.pathname).toBe(NEXT);
      return next.searchParams.get('state')!;
    }

    it('sends the browser on with a fresh state that keeps the account, redirect_to and client state, and hands back the carry', async () => {
      const first = await firstState(acme, 'client-9');
      const before = await pairings();
      const onward = await callback({ code: 'ok', state: first });
      expect(onward.status).toBe(302);
      expect(onward.headers.get('cache-control')).toBe('no-store');
      const second = locationOf(onward).searchParams.get('state')!;
      expect(second).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
      expect(second).not.toBe(first);
      expect(await pairings()).toBe(before);
      expect(calls[0].carried).toBeUndefined();

      const back = await callback({ code: 'final', state: second });
      const landed = locationOf(back);
      expect(landed.origin + landed.pathname).toBe(CB);
      expect([...landed.searchParams.keys()].sort()).toEqual(['code', 'state']);
      expect(landed.searchParams.get('state')).toBe('client-9');
      expect(calls[1].carried).toEqual({ who: 'alice', org: 'o-1' });
      expect(calls[1].codeVerifier).not.toBe(calls[0].codeVerifier);

      const code = landed.searchParams.get('code')!;
      const foreign = await newCollection(t.call, globex, 'conf', 'Globex');
      expect(
        (await t.call(globex, 'POST', `/v1/collections/${foreign}/pair_credentials?auth_code=${code}`)).status,
      ).toBe(400);
      const col = await newCollection(t.call, acme, 'conf', 'Acme');
      expect((await t.call(acme, 'POST', `/v1/collections/${col}/pair_credentials?auth_code=${code}`)).status).toBe(
        204,
      );
      const { wallet_id } = await db()
        .selectFrom('collections')
        .select('wallet_id')
        .where('id', '=', col)
        .executeTakeFirstOrThrow();
      const { sealed_grant } = await db()
        .selectFrom('wallets')
        .select('sealed_grant')
        .where('id', '=', wallet_id)
        .executeTakeFirstOrThrow();
      expect(t.runtime.ctx.sealer.open<Grant>(sealed_grant!)).toEqual({
        who: 'alice',
        org: 'o-1',
        access_token: 'at-final',
      });
    });

    it("relays the provider's error at the second step before anything else, and burns that state", async () => {
      const second = await secondState(acme, 'e');
      const before = await pairings();
      const res = await callback({
        error: 'consent_required',
        error_description: 'denied',
        admin_consent: 'True',
        state: second,
      });
      expect(Object.fromEntries(locationOf(res).searchParams)).toEqual({
        error: 'consent_required',
        error_description: 'denied',
        state: 'e',
      });
      expect(calls).toHaveLength(1);
      expect(await pairings()).toBe(before);
      expect((await callback({ code: 'late', state: second })).status).toBe(400);
    });

    it('relays a refusal of the first step without a second state', async () => {
      const res = await callback({ code: 'nope', state: await firstState(acme, 'r') });
      const landed = locationOf(res);
      expect(landed.origin + landed.pathname).toBe(CB);
      expect(Object.fromEntries(landed.searchParams)).toEqual({
        error: 'access_denied',
        error_description: 'step one refused',
        state: 'r',
      });
    });

    it('answers 400 to a replayed first state and to a second state that is replayed or carries something else', async () => {
      const first = await firstState(acme);
      const second = locationOf(await callback({ code: 'ok', state: first })).searchParams.get('state')!;
      expect((await callback({ code: 'ok', state: first })).status).toBe(400);

      const [body, mac] = second.split('.') as [string, string];
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
      expect(payload.c).toEqual({ who: 'alice', org: 'o-1' });
      const forged = Buffer.from(JSON.stringify({ ...payload, c: { who: 'mallory', org: 'o-1' } })).toString(
        'base64url',
      );
      const dropped = Buffer.from(JSON.stringify({ ...payload, c: undefined })).toString('base64url');
      const before = await pairings();
      for (const state of [`${forged}.${mac}`, `${dropped}.${mac}`])
        expect((await callback({ code: 'x', state })).status).toBe(400);
      expect(calls).toHaveLength(1);
      expect(await pairings()).toBe(before);

      expect((await callback({ code: 'final', state: second })).status).toBe(302);
      expect((await callback({ code: 'final', state: second })).status).toBe(400);
    });

    it('keeps a carry inside the signed state and refuses carries that are not small objects of strings', async () => {
      const { accountId } = await t.client('acme');
      const states = createOAuthStates({ sealer: t.runtime.ctx.sealer, pairings: new PairingRepo(db()) });
      const issued = await states.issue({ accountId, type: 'conf', redirectTo: CB, carry: { tid: 't-1' } });
      expect(await states.consume(issued.state, 'conf')).toMatchObject({
        accountId,
        redirectTo: CB,
        carry: { tid: 't-1' },
      });
      const plain = await states.issue({ accountId, type: 'conf', redirectTo: CB });
      expect((await states.consume(plain.state, 'conf')).carry).toBeUndefined();
      const tooMany = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
      for (const carry of [{ n: 1 }, ['a'], tooMany, { big: 'x'.repeat(3000) }]) {
        await expect(
          states.issue({ accountId, type: 'conf', redirectTo: CB, carry: carry as unknown as Record<string, string> }),
        ).rejects.toThrow(/carry/);
      }
    });
  },
);
