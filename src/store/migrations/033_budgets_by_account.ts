import type { Kysely } from 'kysely';

/**
 * Issue 25. Provider budgets are kept per provider account (the Zoom account, the Microsoft tenant), no longer per
 * wallet (provider-session.ts budgetKey). A wallet's learned rate moves to its account's key, so the first run after
 * the upgrade does not start cold; where several wallets share an account, the most recently updated row is kept.
 * Wallets whose account was never recorded keep theirs.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const rows: Array<{ key: string; provider: string; account: string }> = await db
    .selectFrom('provider_budgets as b')
    .innerJoin('wallets as w', 'w.id', 'b.credential')
    .select(['b.key', 'b.provider', 'w.provider_account_id as account'])
    .where('w.provider_account_id', 'is not', null)
    .orderBy('b.updated_at', 'desc')
    .orderBy('b.key')
    .execute();
  for (const r of rows) {
    const credential = `account:${r.account}`;
    const key = `${r.provider}:${credential}`;
    const taken = await db.selectFrom('provider_budgets').select('key').where('key', '=', key).executeTakeFirst();
    if (taken) await db.deleteFrom('provider_budgets').where('key', '=', r.key).execute();
    else await db.updateTable('provider_budgets').set({ key, credential }).where('key', '=', r.key).execute();
  }
}

/** The rows stay under their accounts' keys: an older version relearns per wallet. */
export async function down(): Promise<void> {}
