import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Grant } from '../../../src/connectors/types.ts';
import { openDatabase, type Database } from '../../../src/store/db.ts';
import { WalletRepo } from '../../../src/store/wallets.ts';
import { CredentialManager } from '../../../src/sync/providers/credentials.ts';
import { testDatabases } from '../../support/databases.ts';
import { seedCollection, testSealer } from '../../support/sync-fixtures.ts';
import { GrantRevokedError } from '../../../src/domain/run-failures.ts';

const soon = (ms: number) => new Date(Date.now() + ms).toISOString();

for (const database of testDatabases) {
  describe(`credential refresh (${database.name})`, () => {
    let db: Database;
    let otherDb: Database;
    let close: () => Promise<void>;
    const logged: string[] = [];
    const log = {
      info: (o: object, m?: string) => logged.push(JSON.stringify(o) + (m ?? '')),
      warn: (o: object, m?: string) => logged.push(JSON.stringify(o) + (m ?? '')),
      error: (o: object, m?: string) => logged.push(JSON.stringify(o) + (m ?? '')),
      debug: (o: object, m?: string) => logged.push(JSON.stringify(o) + (m ?? '')),
    };

    beforeAll(async () => {
      const opened = await database.open();
      ({ db, close } = opened);
      // A second connection pool on the same database: what a second process would have.
      otherDb = opened.sqlitePath
        ? openDatabase({ sqlitePath: opened.sqlitePath })
        : openDatabase({ url: opened.url, schema: opened.schema, poolSize: 3 });
    });
    afterAll(async () => {
      await otherDb.destroy();
      await close();
    });

    /** A provider that rotates refresh tokens and refuses one that was already used. */
    const rotatingProvider = () => {
      const used = new Set<string>();
      let n = 0;
      return {
        calls: () => n,
        oauth: {
          async refresh(grant: Grant): Promise<Grant> {
            n += 1;
            await new Promise((r) => setTimeout(r, 80));
            if (used.has(grant.refresh_token!)) throw new GrantRevokedError('invalid_grant: refresh token reused');
            used.add(grant.refresh_token!);
            return { access_token: `a${n}`, refresh_token: `r${n}`, expires_at: soon(3600_000), tenant: 't1' };
          },
        } as never,
      };
    };

    const walletWith = async (grant: Grant) => (await seedCollection(db, { grant })).walletId;

    it('refreshes an expiring token once for many callers in two processes, and persists the rotation first', async () => {
      const walletId = await walletWith({
        access_token: 'a0',
        refresh_token: 'r0',
        expires_at: soon(30_000),
        tenant: 't1',
      });
      const provider = rotatingProvider();
      const one = new CredentialManager({ db, sealer: testSealer, log, pollMs: 20 });
      const two = new CredentialManager({ db: otherDb, sealer: testSealer, log, pollMs: 20 });
      const authOne = one.auth(walletId, provider);
      const authTwo = two.auth(walletId, provider);
      const tokens = await Promise.all([...Array(5)].flatMap(() => [authOne.token(), authTwo.token()]));
      expect(new Set(tokens)).toEqual(new Set(['a1']));
      expect(provider.calls()).toBe(1);
      const row = await new WalletRepo(db).getById(walletId);
      expect(testSealer.open<Grant>(row.sealed_grant!)).toMatchObject({ access_token: 'a1', refresh_token: 'r1' });
      expect(await one.grantInfo(walletId)).toEqual({ expires_at: expect.any(String), tenant: 't1' });
    });

    it('after a 401 refreshes once; a caller holding the already-replaced token gets the new one for free', async () => {
      const walletId = await walletWith({ access_token: 'a0', refresh_token: 'r0', expires_at: soon(3600_000) });
      const provider = rotatingProvider();
      const one = new CredentialManager({ db, sealer: testSealer, log, pollMs: 20 }).auth(walletId, provider);
      const two = new CredentialManager({ db: otherDb, sealer: testSealer, log, pollMs: 20 }).auth(walletId, provider);
      expect(await one.token()).toBe('a0');
      const [x, y] = await Promise.all([one.refresh('a0'), two.refresh('a0')]);
      expect([x, y]).toEqual(['a1', 'a1']);
      expect(await two.refresh('a0')).toBe('a1');
      expect(provider.calls()).toBe(1);
    });

    it("offers the process's newest token without I/O once a refresh stored it, and none that is about to expire", async () => {
      const walletId = await walletWith({ access_token: 'a0', refresh_token: 'r0', expires_at: soon(3600_000) });
      const provider = rotatingProvider();
      const auth = new CredentialManager({ db, sealer: testSealer, log, pollMs: 20 }).auth(walletId, provider);
      expect(auth.current!()).toBeUndefined(); // nothing read yet
      expect(await auth.token()).toBe('a0');
      expect(auth.current!()).toBe('a0');
      expect(await auth.refresh('a0')).toBe('a1');
      expect(auth.current!()).toBe('a1');
      // within the refresh skew (60 s) of its expiry: held, but not offered
      const expiring = await walletWith({ access_token: 'b0', refresh_token: 'r9', expires_at: soon(30_000) });
      const manager = new CredentialManager({ db, sealer: testSealer, log, pollMs: 20 });
      await manager.grantInfo(expiring);
      expect(manager.auth(expiring, provider).current!()).toBeUndefined();
      expect(provider.calls()).toBe(1);
    });

    it('takes over the lock of a process that died mid-refresh once it expires', async () => {
      const walletId = await walletWith({ access_token: 'a0', refresh_token: 'r0', expires_at: soon(-1000) });
      await db
        .insertInto('credential_refresh_locks')
        .values({ wallet_id: walletId, owner: 'ghost:1:dead', expires_at: soon(300) })
        .execute();
      const provider = rotatingProvider();
      const started = Date.now();
      expect(
        await new CredentialManager({ db, sealer: testSealer, log, pollMs: 20 }).auth(walletId, provider).token(),
      ).toBe('a1');
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      expect(provider.calls()).toBe(1);
    });

    /**
     * Like Zoom: the refresh token is spent when the request arrives; a spent one is refused at once, while a good
     * refresh answers only after `slowMs`.
     */
    const slowRotatingProvider = (slowMs: number) => {
      const spent = new Set<string>();
      let n = 0;
      return {
        calls: () => n,
        oauth: {
          async refresh(grant: Grant): Promise<Grant> {
            n += 1;
            const k = n;
            if (spent.has(grant.refresh_token!)) throw new GrantRevokedError('invalid_grant: refresh token reused');
            spent.add(grant.refresh_token!);
            await new Promise((r) => setTimeout(r, slowMs));
            return { access_token: `a${k}`, refresh_token: `r${k}`, expires_at: soon(3600_000) };
          },
        } as never,
      };
    };

    it('renews its lock through a refresh slower than the lock, so another process never spends the same token', async () => {
      const walletId = await walletWith({ access_token: 'a0', refresh_token: 'r0', expires_at: soon(-1000) });
      // Four lock lifetimes long; each renewal (every lockMs / 3) may come 300 ms late and still hold the lock.
      const provider = slowRotatingProvider(1800);
      const opts = { sealer: testSealer, log, pollMs: 20, lockMs: 450 };
      const one = new CredentialManager({ db, ...opts }).auth(walletId, provider);
      const two = new CredentialManager({ db: otherDb, ...opts }).auth(walletId, provider);
      const first = one.token();
      await new Promise((r) => setTimeout(r, 60));
      // two asks while one's call is in flight, and is still waiting long after one's first lock would have lapsed.
      const [x, y] = await Promise.all([first, two.token()]);
      expect([x, y]).toEqual(['a1', 'a1']);
      expect(provider.calls()).toBe(1);
      expect(
        await db
          .selectFrom('credential_refresh_locks')
          .selectAll()
          .where('wallet_id', '=', walletId)
          .executeTakeFirst(),
      ).toBeUndefined();
    });

    it('after invalid_grant waits for the process that took the lock over and uses the grant it stored', async () => {
      const walletId = await walletWith({ access_token: 'a0', refresh_token: 'r0', expires_at: soon(-1000) });
      let refuse!: () => void;
      const gate = new Promise<void>((r) => (refuse = r));
      let calling!: () => void;
      const called = new Promise<void>((r) => (calling = r));
      const refused = {
        oauth: {
          async refresh(): Promise<Grant> {
            calling();
            await gate;
            throw new GrantRevokedError('invalid_grant: refresh token reused');
          },
        },
      } as never;
      const pending = new CredentialManager({ db, sealer: testSealer, log, pollMs: 20 })
        .auth(walletId, refused)
        .token();
      // Our process holds the lock and is in the provider call (it read the grant it refreshes before calling): the
      // grant replaced below is then one it has not seen, however slow the machine.
      await called;
      // Our process stalled past its lock; another took it over and spent the token first.
      await db
        .updateTable('credential_refresh_locks')
        .set({ owner: 'other:-:1:x', expires_at: soon(10_000) })
        .where('wallet_id', '=', walletId)
        .execute();
      refuse();
      await new Promise((r) => setTimeout(r, 150));
      const wallets = new WalletRepo(otherDb);
      const version = (await wallets.getById(walletId)).grant_version;
      expect(
        await wallets.swapGrant(
          walletId,
          version,
          testSealer.seal({ access_token: 'b1', refresh_token: 'rb1', expires_at: soon(3600_000) }),
        ),
      ).toBe(true);
      await otherDb.deleteFrom('credential_refresh_locks').where('wallet_id', '=', walletId).execute();
      expect(await pending).toBe('b1');
    });

    it('after invalid_grant sees a grant stored by the process that then let go of the lock between two reads', async () => {
      const walletId = await walletWith({ access_token: 'a0', refresh_token: 'r0', expires_at: soon(-1000) });
      const manager = new CredentialManager({ db, sealer: testSealer, log, pollMs: 20 });
      const wallets = new WalletRepo(otherDb);
      let refused = false;
      const other = {
        oauth: {
          async refresh(): Promise<Grant> {
            // the other process took our lock over and spent the token first
            await db
              .updateTable('credential_refresh_locks')
              .set({ owner: 'other:-:1:x', expires_at: soon(10_000) })
              .where('wallet_id', '=', walletId)
              .execute();
            refused = true;
            throw new GrantRevokedError('invalid_grant: refresh token reused');
          },
        },
      } as never;
      // Right after our process read the grant following the refusal, the other stores its new grant and lets go.
      let interleaved = false;
      const original = WalletRepo.prototype.getById;
      WalletRepo.prototype.getById = async function (this: WalletRepo, id: string) {
        const row = await original.call(this, id);
        if (refused && !interleaved && this !== wallets) {
          interleaved = true;
          const version = (await original.call(wallets, walletId)).grant_version;
          const next = testSealer.seal({ access_token: 'b1', refresh_token: 'rb1', expires_at: soon(3600_000) });
          expect(await wallets.swapGrant(walletId, version, next)).toBe(true);
          await otherDb.deleteFrom('credential_refresh_locks').where('wallet_id', '=', walletId).execute();
        }
        return row;
      };
      try {
        expect(await manager.auth(walletId, other).token()).toBe('b1');
        expect(interleaved).toBe(true);
      } finally {
        WalletRepo.prototype.getById = original;
      }
    });

    it('gives a refresh an overall deadline, yet keeps the lock until the late answer is stored', async () => {
      const walletId = await walletWith({ access_token: 'a0', refresh_token: 'r0', expires_at: soon(-1000) });
      // Answers after 1.8 deadlines: past the caller's deadline, within the one more the lock is kept for. The lock
      // lapses three times over unless renewed; a renewal may come 400 ms late (a loaded machine) and still hold it.
      const provider = slowRotatingProvider(1800);
      const opts = { sealer: testSealer, log, pollMs: 20, lockMs: 600 };
      const one = new CredentialManager({ db, ...opts, refreshDeadlineMs: 1000 }).auth(walletId, provider);
      await expect(one.token()).rejects.toThrow(/did not finish within/);
      const two = new CredentialManager({ db: otherDb, ...opts, waitMs: 5000 }).auth(walletId, provider);
      expect(await two.token()).toBe('a1');
      expect(provider.calls()).toBe(1);
      const row = await new WalletRepo(db).getById(walletId);
      expect(testSealer.open<Grant>(row.sealed_grant!)).toMatchObject({ access_token: 'a1', refresh_token: 'r1' });
    });

    it('passes a refused grant on as GrantRevokedError and never logs a token', async () => {
      const walletId = await walletWith({
        access_token: 'secret-access',
        refresh_token: 'secret-refresh',
        expires_at: soon(-1000),
      });
      const refusing = {
        oauth: { refresh: async () => Promise.reject(new GrantRevokedError('invalid_grant')) },
      } as never;
      await expect(
        new CredentialManager({ db, sealer: testSealer, log }).auth(walletId, refusing).token(),
      ).rejects.toBeInstanceOf(GrantRevokedError);
      const lock = await db
        .selectFrom('credential_refresh_locks')
        .selectAll()
        .where('wallet_id', '=', walletId)
        .executeTakeFirst();
      expect(lock).toBeUndefined();
      expect(logged.length).toBeGreaterThan(0);
      expect(logged.join('\n')).not.toMatch(/secret-access|secret-refresh|"a\d"|"r\d"/);
    });
  });
}
