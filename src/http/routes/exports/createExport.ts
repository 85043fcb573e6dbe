import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { conflict } from '../../../domain/errors.ts';
import { badRequest } from '../../errors.ts';
import { ExportRepo } from '../../../store/exports.ts';
import { newId, nowIso } from '../../../store/ids.ts';
import { errors, IdParams } from '../../schemas.ts';
import { ownCollection } from '../items/own.ts';
import { ExportStatus } from './views.ts';

const Body = Type.Object(
  {
    items: Type.Optional(
      Type.Object(
        {
          custodians: Type.Optional(
            Type.Array(Type.String({ minLength: 1, maxLength: 320 }), {
              maxItems: 1000,
              description: 'Custodian e-mails or provider ids (`channel:<id>` for a Zoom channel).',
            }),
          ),
          kinds: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 })),
          run_id: Type.Optional(
            Type.String({ minLength: 1, maxLength: 64, description: 'Only items this run collected.' }),
          ),
          from: Type.Optional(Type.String({ format: 'date-time' })),
          to: Type.Optional(Type.String({ format: 'date-time' })),
        },
        { additionalProperties: false },
      ),
    ),
    chat_format: Type.Optional(Type.Union([Type.Literal('rsmf'), Type.Literal('json')], { default: 'rsmf' })),
    dedupe: Type.Optional(
      Type.Union([Type.Literal('none'), Type.Literal('custodian'), Type.Literal('global')], { default: 'none' }),
    ),
  },
  { additionalProperties: false },
);

const DESCRIPTION = `Queues an export of the collection's current items as a signed production package (a ZIP): a Concordance
load file \`DATA/custody.dat\`, \`NATIVES/\`, \`TEXT/\`, meeting families, chat as RSMF 2.0 (or JSON) per conversation per
UTC day with its chat files inside and as child documents, \`audit.jsonl\`, \`manifest.json\` and \`manifest.jws\` (Ed25519, keys at \`GET /v1/signing-keys\`). Any worker writes
it; progress arrives on the collection's event stream (\`export.progress\`, \`export.finished\`). Allowed under a legal hold.`;

export default function createExport(app: App) {
  const exports = new ExportRepo(app.ctx.db);
  app.post(
    '/v1/collections/:id/exports',
    {
      config: { audit: 'export.create' },
      // The body is optional: a request without one validates as {} (every option at its default).
      preValidation: async (req) => {
        req.body ??= {};
      },
      schema: {
        operationId: 'createExport',
        tags: ['exports'],
        summary: 'Export the collection as a production package',
        description: DESCRIPTION,
        params: IdParams,
        body: Body,
        'x-request-body-optional': true,
        response: {
          202: Type.Object({ export_id: Type.String(), status: ExportStatus }),
          ...errors(400, 401, 404, 409, 429),
        },
      },
    },
    async (req, reply) => {
      const { collection, connector } = await ownCollection(app.ctx, req.caller.accountId, req.params.id);
      if (collection.deleting_at) throw conflict('status', 'the collection is being deleted.');
      const body = req.body ?? {};
      const items = body.items ?? {};
      const known = connector?.kinds ?? [];
      const unknown = (items.kinds ?? []).find((k) => !known.includes(k));
      if (unknown !== undefined)
        throw badRequest(
          `kind "${unknown}" is not a kind of ${collection.type} collections (${known.join(', ')}).`,
          '/body/items/kinds',
        );
      if (items.run_id) {
        const run = await app.ctx.db
          .selectFrom('runs')
          .select('collection_id')
          .where('id', '=', items.run_id)
          .executeTakeFirst();
        if (run?.collection_id !== collection.id)
          throw badRequest('run_id is not a run of this collection.', '/body/items/run_id');
      }
      if (items.from && items.to && Date.parse(items.from) > Date.parse(items.to))
        throw badRequest('from is after to.', '/body/items/from');
      const options = { items, chat_format: body.chat_format ?? 'rsmf', dedupe: body.dedupe ?? 'none' };
      const row = await exports.create({
        id: newId('exp'),
        account_id: req.caller.accountId,
        collection_id: collection.id,
        options: JSON.stringify(options),
        created_at: nowIso(),
      });
      req.auditInfo = {
        targetId: row.id,
        collectionId: collection.id,
        detail: { export_id: row.id, chat_format: options.chat_format, dedupe: options.dedupe },
      };
      await app.ctx.engine.exportQueued(row.id);
      return reply
        .code(202)
        .header('Location', `/v1/collections/${collection.id}/exports/${row.id}`)
        .send({ export_id: row.id, status: 'queued' as const });
    },
  );
}
