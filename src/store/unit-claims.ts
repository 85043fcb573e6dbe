// Pieces more than one unit of a run could reach (Zoom channels) and the unit that claimed each (`unit_claims`).
import type { Executor } from './transaction.ts';

export class UnitClaimRepo {
  constructor(private readonly db: Executor) {}

  /**
   * A piece more than one unit of the run could reach (a Zoom channel): it belongs to the first unit claiming it.
   * True when it is (now) this unit's, also when the same unit claims it again after a takeover.
   */
  async claimPiece(runId: string, claimKey: string, unitKey: string): Promise<boolean> {
    await this.db
      .insertInto('unit_claims')
      .values({ run_id: runId, claim_key: claimKey, unit_key: unitKey })
      .onConflict((oc) => oc.columns(['run_id', 'claim_key']).doNothing())
      .execute();
    const row = await this.db
      .selectFrom('unit_claims')
      .select('unit_key')
      .where('run_id', '=', runId)
      .where('claim_key', '=', claimKey)
      .executeTakeFirst();
    return row?.unit_key === unitKey;
  }

  /** Every piece the run's units claimed. */
  async claims(runId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('unit_claims').select('claim_key').where('run_id', '=', runId).execute();
    return rows.map((r) => r.claim_key);
  }

  /** The ledger units (Zoom channels) a unit claimed: their counts continue after a takeover. */
  async claimedUnits(runId: string, unitKey: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('unit_claims')
      .select('claim_key')
      .where('run_id', '=', runId)
      .where('unit_key', '=', unitKey)
      .execute();
    return rows.map((r) => r.claim_key);
  }
}
