/** Provider request budgets (migration 013); same conventions as CoreTables, times as epoch ms where suffixed. */
export interface BudgetTables {
  provider_budgets: {
    /** `<provider>:<credential>`, the budget key */
    key: string;
    provider: string;
    credential: string;
    /** learned requests (or cost units) per second */
    rate: number;
    ceiling: number | null;
    ceiling_at_ms: number | null;
    cut_at_ms: number | null;
    updated_at: string;
  };
  /** PostgreSQL only */
  provider_budget_leases: { key: string; lease_id: string; expires_at_ms: number; holder: string | null };
}
