import type { Migration } from 'kysely/migration';
import * as core from './001_core.ts';
import * as sync from './002_sync.ts';
import * as searchHoldsAudit from './003_search_holds_audit.ts';
import * as listing from './004_listing.ts';
import * as versions from './005_versions.ts';
import * as deleting from './006_deleting.ts';
import * as deletingWorkspaces from './007_deleting_workspaces.ts';
import * as events from './008_events.ts';
import * as units from './010_units.ts';
import * as providerEvents from './012_provider_events.ts';
import * as webhooks from './011_webhooks.ts';
import * as providerBudgets from './013_provider_budgets.ts';
import * as latestRunIndex from './015_latest_run_index.ts';
import * as unitJobs from './016_unit_jobs.ts';
import * as followUpRuns from './017_follow_up_runs.ts';
import * as unitProgress from './018_unit_progress.ts';
import * as unitPlanData from './020_unit_plan_data.ts';
import * as exportsAuditChain from './021_exports_audit_chain.ts';
import * as custodianNames from './022_custodian_names.ts';
import * as budgetLeaseSlots from './026_budget_lease_slots.ts';
import * as partialIndexes from './027_partial_indexes.ts';
import * as dropRunUnitsCheckpoint from './028_drop_run_units_checkpoint.ts';
import * as apiRateLimits from './029_api_rate_limits.ts';
import * as unitJobsQueued from './030_unit_jobs_queued.ts';
import * as unitRetriesUnit from './031_unit_retries_unit.ts';
import * as runsWithoutEndedUnits from './032_runs_without_ended_units.ts';
import * as budgetsByAccount from './033_budgets_by_account.ts';
import * as smallBlobs from './034_small_blobs.ts';
import * as filtersLast from './035_filters_last.ts';

/** Every migration, in order. Names are stable: they are recorded in the database. */
export const migrations: Record<string, Migration> = {
  '001_core': core,
  '002_sync': sync,
  '003_search_holds_audit': searchHoldsAudit,
  '004_listing': listing,
  '005_versions': versions,
  '006_deleting': deleting,
  '007_deleting_workspaces': deletingWorkspaces,
  '008_events': events,
  '010_units': units,
  '011_webhooks': webhooks,
  '012_provider_events': providerEvents,
  '013_provider_budgets': providerBudgets,
  '015_latest_run_index': latestRunIndex,
  '016_unit_jobs': unitJobs,
  '017_follow_up_runs': followUpRuns,
  '018_unit_progress': unitProgress,
  '020_unit_plan_data': unitPlanData,
  '021_exports_audit_chain': exportsAuditChain,
  '022_custodian_names': custodianNames,
  '026_budget_lease_slots': budgetLeaseSlots,
  '027_partial_indexes': partialIndexes,
  '028_drop_run_units_checkpoint': dropRunUnitsCheckpoint,
  '029_api_rate_limits': apiRateLimits,
  '030_unit_jobs_queued': unitJobsQueued,
  '031_unit_retries_unit': unitRetriesUnit,
  '032_runs_without_ended_units': runsWithoutEndedUnits,
  '033_budgets_by_account': budgetsByAccount,
  '034_small_blobs': smallBlobs,
  '035_filters_last': filtersLast,
};
