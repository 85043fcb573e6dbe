import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { reconciliationCsv } from '../../../read/reconciliation-report.ts';
import { errors } from '../../schemas.ts';

const Counts = {
  listed: Type.Integer({
    description: 'Pieces the run found within the selection (or that it tried to list), each counted once.',
  }),
  collected: Type.Integer({
    description:
      'Stored by this run (new or changed): the items this run wrote, as the items API lists them with this `run_id`.',
  }),
  unchanged: Type.Integer({ description: 'Already stored with the same version; nothing downloaded.' }),
  excluded: Type.Integer({
    description: 'Found at the source but left out by the sync filters (e.g. a recording file type not selected).',
  }),
  not_present: Type.Integer({
    description:
      "Optional pieces the source does not have (a 404 on a meeting's AI summary) or that vanished between listing and download.",
  }),
  failed: Type.Integer({
    description:
      'Pieces that could not be collected. A failure that kept items from being listed (a page of messages) counts 1.',
  }),
};

const Exception = Type.Object({
  source_id: Type.String(),
  kind: Type.String({
    description:
      'An item kind, or what could not be listed: `chat_page`, `recording_list`, `custodian`, `channel`, `chat_history`.',
  }),
  name: Type.String(),
  outcome: Type.Union(
    [Type.Literal('failed'), Type.Literal('not_present'), Type.Literal('not_reached'), Type.Literal('provider_limit')],
    {
      description:
        '`not_reached`: the run was cancelled or stopped before it got there. `provider_limit`: the provider does not serve it at all ' +
        "(Zoom's Team Chat API reaches back 6 months: kind `chat_history`, once per unit whose history the run would have reached further back); " +
        'not counted in `listed`, not a failure, never retried.',
    },
  ),
  reason: Type.String(),
});

const Reconciliation = Type.Object({
  run_id: Type.String(),
  status: Type.String({ description: 'The run status (see GET …/runs).' }),
  balanced: Type.Boolean({
    description:
      'listed = collected + unchanged + excluded + not_present + failed, in the totals and for every custodian.',
  }),
  totals: Type.Object(Counts),
  custodians: Type.Array(
    Type.Object({
      custodian: Type.String({
        description: "The provider user id (as on items' `custodian`); the channel id for a Zoom channel.",
      }),
      unit_kind: Type.String({ description: '`custodian` or `channel`.' }),
      custodian_name: Type.Union([Type.String(), Type.Null()], {
        description:
          "The custodian's name as collected (a Zoom channel: its name); kept after the user is deleted at the provider.",
      }),
      custodian_email: Type.Union([Type.String(), Type.Null()], {
        description: "The custodian's e-mail as collected; null for a Zoom channel.",
      }),
      email: Type.Union([Type.String(), Type.Null()], { description: 'The same as `custodian_email`.' }),
      ...Counts,
      exceptions: Type.Array(Exception),
    }),
  ),
});

export default function getReconciliation(app: App) {
  app.get(
    '/v1/collections/:id/runs/:run_id/reconciliation',
    {
      config: { audit: 'reconciliation.export' },
      schema: {
        operationId: 'getReconciliation',
        tags: ['items'],
        summary: "A run's reconciliation: per custodian, what existed, what was collected, and why anything was not",
        description:
          'Per unit of the run (a custodian: a Zoom owner or a OneDrive user; or a Zoom channel): `listed, collected, unchanged, excluded, not_present, failed`, and every exception ' +
          '(`failed`, `not_present`, `not_reached`, `provider_limit`) with its reason. `balanced` says the invariant `listed = collected + unchanged + excluded + not_present + failed` holds for every ' +
          "custodian and in the totals. Failed pieces stay on their unit's retry list and are tried again by the following runs; after 5 attempts they are reported as permanently " +
          'failed in the manifest (`permanently_failed`). Live while the run is active. ' +
          '`format=csv`: one row per custodian with the counts; `format=csv&rows=exceptions`: one row per exception.',
        params: Type.Object({
          id: Type.String({ minLength: 1, maxLength: 64 }),
          run_id: Type.String({ minLength: 1, maxLength: 64 }),
        }),
        querystring: Type.Object({
          format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('csv')], { default: 'json' })),
          rows: Type.Optional(
            Type.Union([Type.Literal('custodians'), Type.Literal('exceptions')], {
              default: 'custodians',
              description: 'CSV only.',
            }),
          ),
        }),
        'x-response-headers': {
          200: {
            'Content-Disposition': {
              description: '`attachment; filename="reconciliation-<run>-<rows>.csv"` (CSV only)',
              schema: { type: 'string' },
            },
          },
        },
        response: {
          200: {
            description: 'The reconciliation.',
            content: { 'application/json': { schema: Reconciliation }, 'text/csv': { schema: { type: 'string' } } },
          },
          ...errors(400, 401, 404, 429),
        },
      },
    },
    async (req, reply) => {
      req.auditInfo = {
        targetId: req.params.run_id,
        detail: {
          collection_id: req.params.id,
          format: req.query.format ?? 'json',
          ...(req.query.format === 'csv' && { rows: req.query.rows ?? 'custodians' }),
        },
      };
      const { run, report } = await app.ctx.reads.runs.reconciliation(
        req.caller.accountId,
        req.params.id,
        req.params.run_id,
      );
      if (req.query.format !== 'csv')
        return reply.header('Content-Type', 'application/json; charset=utf-8').send(JSON.stringify(report));
      const rows = req.query.rows ?? 'custodians';
      return reply
        .header('Content-Type', 'text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="reconciliation-${run.id}-${rows}.csv"`)
        .send(reconciliationCsv(report, rows));
    },
  );
}
