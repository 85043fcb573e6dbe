import crypto from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Sealer } from '../domain/seal.ts';
import type { Executor } from '../store/transaction.ts';

export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  use: 'sig';
}

export interface ActiveKey {
  kid: string;
  privateKey: crypto.KeyObject;
}

/**
 * The installation's Ed25519 signing keys, in the database so every process shares them; private halves are
 * sealed like the other secrets. Rotation retires the active key and keeps its public half in the JWKS.
 */
export class SigningKeys {
  constructor(
    private readonly db: Executor,
    private readonly sealer: Sealer,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The active key, created on first use. Two processes creating one at once both keep theirs; the oldest signs. */
  async active(): Promise<ActiveKey> {
    let row = await this.current();
    if (!row) {
      await this.create();
      row = await this.current();
    }
    if (!row) throw new Error('no signing key could be created');
    const jwk = this.sealer.open<JWK>(row.private_sealed);
    return { kid: row.kid, privateKey: crypto.createPrivateKey({ key: jwk, format: 'jwk' }) };
  }

  /** Every key ever used (retired ones too): what a recipient verifies with. */
  async jwks(): Promise<{ keys: PublicJwk[] }> {
    const rows = await this.db
      .selectFrom('signing_keys')
      .select('public_jwk')
      .orderBy('created_at')
      .orderBy('kid')
      .execute();
    return { keys: rows.map((r) => JSON.parse(r.public_jwk) as PublicJwk) };
  }

  /** A new active key; the previous one is retired (its public half stays in the JWKS). */
  async rotate(): Promise<string> {
    const at = this.clock().toISOString();
    await this.db.updateTable('signing_keys').set({ retired_at: at }).where('retired_at', 'is', null).execute();
    return this.create();
  }

  private current() {
    return this.db
      .selectFrom('signing_keys')
      .selectAll()
      .where('retired_at', 'is', null)
      .orderBy('created_at')
      .orderBy('kid')
      .limit(1)
      .executeTakeFirst();
  }

  private async create(): Promise<string> {
    const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    const pub = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(pub);
    const jwk: PublicJwk = { kty: 'OKP', crv: 'Ed25519', x: pub.x!, kid, use: 'sig' };
    const sealed = this.sealer.seal({ ...(await exportJWK(privateKey)), kid });
    await this.db
      .insertInto('signing_keys')
      .values({
        kid,
        public_jwk: JSON.stringify(jwk),
        private_sealed: sealed,
        created_at: this.clock().toISOString(),
        retired_at: null,
      })
      .onConflict((oc) => oc.column('kid').doNothing())
      .execute();
    return kid;
  }
}
