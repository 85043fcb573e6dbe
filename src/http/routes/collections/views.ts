import { Type } from 'typebox';
import type { CollectionRow } from '../../../read/collections.ts';
import { SYNC_STATUSES, TYPE_SYNCS } from '../../../domain/sync-state.ts';
import type { RunSummary } from '../../../sync/engine-api.ts';
import { RunSummarySchema } from '../../../read/view-schemas.ts';

export { RunSummarySchema };

export const CollectionSummary = Type.Object({
  onna_id: Type.String(),
  name: Type.String(),
  type: Type.String(),
  onna_parent_id: Type.String(),
  credential_id: Type.String(),
  sync_status: Type.String({ enum: [...SYNC_STATUSES] }),
  type_sync: Type.String({ enum: [...TYPE_SYNCS] }),
  creation_datetime: Type.String({ format: 'date-time' }),
});

export const CollectionDetail = Type.Object({
  ...CollectionSummary.properties,
  status_reason: Type.Union([Type.String(), Type.Null()], { description: 'Why the status is `error` or `failed`.' }),
  sync_filters: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
  credentials_paired: Type.Boolean(),
  modification_datetime: Type.String({ format: 'date-time' }),
  next_sync_datetime: Type.Union([Type.String(), Type.Null()]),
  latest_run: Type.Union([RunSummarySchema, Type.Null()], {
    description: 'The latest run; live counters while it is active.',
  }),
  missing_scopes: Type.Optional(
    Type.Array(
      Type.Object({
        scope: Type.String({ description: 'The scope (or app role) exactly as the provider names it.' }),
        feature: Type.String({ description: 'What of the saved filters needs it.' }),
        pointer: Type.String({ description: 'JSON pointer into `sync_filters` of the part that switches it on.' }),
        message: Type.String({ description: 'The whole sentence for a person: the scope, the feature, what to do.' }),
      }),
      {
        description:
          "Paired, with saved filters, and the connector can tell (Zoom: the grant's scopes): the scopes the filters use that the paired grant lacks, `[]` when none. Shown from the moment of pairing (`pair_credentials` also emits `collection.scopes_missing`); a run of such filters would stop in `error`, `start` answers 409 and a PATCH that needs one 422.",
      },
    ),
  ),
  event_mode: Type.Optional(
    Type.Union([Type.Literal('subscription'), Type.Literal('polling')], {
      description:
        "`edrive`, paired: how changes reach the collection between scheduled runs. `subscription`: Graph change notifications on each selected drive (the app registration holds `Files.ReadWrite.All`, which Graph requires for drive subscriptions). `polling`: no subscription is attempted (the permission is missing, or `MS_CHANGE_NOTIFICATIONS=off`); each selected drive's delta is polled.",
    }),
  ),
  polling_interval_minutes: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        "With `event_mode: polling`: minutes between polls of each selected drive, sized to the tenant's request budget.",
    }),
  ),
});

export function collectionSummary(c: CollectionRow) {
  return {
    onna_id: c.id,
    name: c.name,
    type: c.type,
    onna_parent_id: c.workspace_id,
    credential_id: c.wallet_id,
    sync_status: c.sync_status,
    type_sync: c.type_sync,
    creation_datetime: c.created_at,
  };
}

/** Built onto the summary object, not spread into a new one: a spread literal here cost a request ~10 µs. */
export function collectionDetail(c: CollectionRow, paired: boolean, latestRun: RunSummary | null) {
  return Object.assign(collectionSummary(c), {
    status_reason: c.status_reason,
    sync_filters: c.sync_filters ? (JSON.parse(c.sync_filters) as Record<string, unknown>) : null,
    credentials_paired: paired,
    modification_datetime: c.updated_at,
    next_sync_datetime: c.next_sync_at,
    latest_run: latestRun,
  });
}
