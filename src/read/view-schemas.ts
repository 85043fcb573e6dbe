// The public shapes the engine's queries answer with, as TypeBox schemas: the routes validate and document
// them, and the TypeScript types of the views (views.ts) are derived from them, one source each.
import { Type } from 'typebox';
import { RUN_STATUSES } from '../domain/run-state.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const Counters = Type.Object(
  {
    listed: Type.Integer(),
    collected: Type.Integer(),
    unchanged: Type.Integer(),
    excluded: Type.Integer(),
    not_present: Type.Integer(),
    failed: Type.Integer(),
    skipped: Type.Integer({
      description: 'Pieces a resumed run saw a second time: not in `listed`, in no outcome.',
    }),
    bytes: Type.Integer(),
  },
  {
    description:
      "The reconciliation's categories with its numbers (GET …/runs/{run_id}/reconciliation `totals`, live while the run is active): " +
      'listed = collected + unchanged + excluded + not_present + failed.',
  },
);

export const RunSummarySchema = Type.Object({
  run_id: Type.String(),
  trigger: Type.String({
    description:
      'What queued the run: `start` (POST start or PATCH pending), `schedule` (the auto/arch re-sync), `retry` (after a failure), `event` (a provider event).',
  }),
  custodians: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description:
      'The custodians (provider user ids, or e-mails when the event named no id) an `event` run was limited to; null for a run of the whole collection.',
  }),
  status: Type.String({
    enum: [...RUN_STATUSES],
    description:
      '`succeeded`: every piece the filters selected was collected, unchanged, excluded by the filters or not present at the source. ' +
      '`completed_with_errors`: the run finished but some pieces failed (`counters.failed` > 0); the collection stays `synced`, its `status_reason` says how many and where to look ' +
      '(GET …/runs/{run_id}/reconciliation), and the failed pieces are retried by the following runs. `failed`: nothing could be collected, or the run stopped on an error it retries with backoff. ' +
      '`error`: a person must act (pair again, grant a scope). `cancelled`: stopped on request; what was collected stays.',
  }),
  counters: Counters,
  started_datetime: Type.Union([Type.String(), Type.Null()]),
  finished_datetime: Type.Union([Type.String(), Type.Null()]),
  error_count: Type.Integer(),
});

/** The Item of the fixed contract: other tooling depends on these names. */
export const Item = Type.Object({
  onna_id: Type.String(),
  collection_id: Type.String(),
  kind: Type.String({
    description:
      "What the item is; each collection type's connector defines its kinds (listed under the `kind` parameter of the items list).",
  }),
  source_id: Type.String({ description: "The provider's own id of the thing." }),
  name: Type.String(),
  path: Type.String(),
  custodian: Nullable(Type.String({ description: 'Provider user id of the person it was collected for.' })),
  custodian_name: Nullable(
    Type.String({
      description:
        "The custodian's name when collected (a Zoom channel's items: the channel's name); kept after the user is deleted at the provider.",
    }),
  ),
  custodian_email: Nullable(
    Type.String({ description: "The custodian's e-mail when collected; null for a Zoom channel's items." }),
  ),
  size: Nullable(Type.Integer()),
  mime_type: Nullable(Type.String()),
  sha256: Nullable(Type.String()),
  md5: Nullable(Type.String()),
  provider_hash: Nullable(Type.Object({ type: Type.String(), value: Type.String() })),
  hash_verified: Nullable(
    Type.Boolean({
      description: 'Whether the content matched the hash the provider states; null when it states none.',
    }),
  ),
  created_datetime: Nullable(Type.String()),
  modified_datetime: Nullable(Type.String()),
  collected_datetime: Type.String(),
  deleted_at_source: Nullable(Type.String({ description: '`arch` collections: when the source deleted it.' })),
  run_id: Type.String(),
  metadata: Type.Object({}, { additionalProperties: true, description: "The provider's fields." }),
});

/** A superseded version: the item's fields as they were, and when and by which run it was superseded. */
export const ItemVersion = Type.Object({
  version_number: Type.Integer({ description: '1 = the oldest superseded version.' }),
  name: Nullable(Type.String()),
  path: Nullable(Type.String()),
  custodian: Nullable(Type.String()),
  size: Nullable(Type.Integer()),
  mime_type: Nullable(Type.String()),
  sha256: Nullable(Type.String()),
  md5: Nullable(Type.String()),
  provider_hash: Nullable(Type.Object({ type: Type.String(), value: Type.String() })),
  hash_verified: Nullable(Type.Boolean()),
  created_datetime: Nullable(Type.String()),
  modified_datetime: Nullable(Type.String()),
  collected_datetime: Type.String(),
  deleted_at_source: Nullable(Type.String()),
  run_id: Type.String({ description: 'The run that collected this version.' }),
  metadata: Nullable(
    Type.Object({}, { additionalProperties: true, description: "The provider's fields as they were." }),
  ),
  text: Nullable(Type.String({ description: 'The text the source gave (e.g. a chat message before an edit).' })),
  superseded_datetime: Type.String({ description: 'When a run found the next version.' }),
  superseded_by_run_id: Nullable(Type.String()),
  content_available: Type.Boolean({ description: 'Whether GET …/versions/{version_number}/content serves its bytes.' }),
});

export const Run = Type.Object({
  ...RunSummarySchema.properties,
  error: Nullable(Type.String({ description: 'Why the run failed, or needs a person.' })),
  attempt: Type.Integer({
    description:
      'Attempts counted towards the limit of 3: times the run was taken up (> 1 after a crash, a lost lease or a stop for lack of progress), less those a process gave back by shutting down while the run made progress (0 until the next process takes it up).',
  }),
  errors: Type.Array(
    Type.Object({
      source_id: Nullable(Type.String()),
      kind: Nullable(Type.String()),
      reason: Type.String(),
      datetime: Type.String(),
    }),
    { description: 'The first recorded errors: items that failed and why.' },
  ),
  errors_truncated: Type.Boolean({ description: 'More errors were recorded than shown; the manifest lists them all.' }),
});

/** What a run detail shows of the request budget its credential was held to (never a secret). */
export const ProviderBudget = Type.Object(
  {
    provider: Type.String({ description: '`zoom` or `microsoft`.' }),
    rate_per_second: Type.Number({
      description:
        "The request rate (Zoom: requests, OneDrive: SharePoint resource units, per second) learned for this collection's wallet from the provider's answers: " +
        'raised while they are clean, cut on a 429, capped by a limit the provider states. Shared by every worker and every collection using the wallet, and kept across runs; ' +
        'its value now, not when the run ended.',
    }),
    ceiling_per_second: Nullable(
      Type.Number({
        description:
          'The most the rate may rise to: the lower of the limit the provider stated (Zoom `X-RateLimit-Limit` on a per-second 429, Graph `RateLimit-Limit` per minute, less 5 % headroom, trusted for an hour) ' +
          'and `operator_ceiling_per_second`; null when neither is known.',
      }),
    ),
    operator_ceiling_per_second: Nullable(
      Type.Number({
        description:
          "The operator's ceiling on the rate, fleet-wide (`ZOOM_MAX_REQUESTS_PER_SECOND`, `MS_MAX_RESOURCE_UNITS_PER_SECOND`); null when unset.",
      }),
    ),
    learned_at: Type.String({ description: 'When the rate was last learned (ISO 8601).' }),
  },
  { description: 'Absent until a request has been made with the wallet.' },
);

/** A unit of a fanned-out run as the run detail shows it. */
export const RunUnitJob = Type.Object({
  unit: Type.String({ description: 'The custodian (provider user id) or Zoom channel the unit collects.' }),
  status: Type.String({ description: '`queued`, `running`, `done`, `failed` or `cancelled`.' }),
  attempt: Type.Integer({
    description:
      'Attempts counted towards the limit of 3: times the unit was taken up (> 1 after a crash, a lost lease or a stop for lack of progress), less those a process gave back by shutting down while the unit made progress (0 until the next process takes it up).',
  }),
  last_progress_at: Nullable(
    Type.String({
      description:
        'When the unit last made progress (a provider answer, a wait the provider stated, an item, a checkpoint); a unit without progress for UNIT_STALL_SECONDS is stopped and retried.',
    }),
  ),
  error: Nullable(Type.String({ description: 'Why the unit failed as a whole.' })),
});

export const RunDetail = Type.Object({
  ...Run.properties,
  provider_budget: Type.Optional(ProviderBudget),
  units: Type.Array(RunUnitJob, {
    description: "The run's units when it was split into one job per custodian (empty otherwise).",
  }),
});
