import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { errors, IdParams } from '../../schemas.ts';
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
      const row = await app.ctx.services.exports.create(
        req.caller.accountId,
        req.params.id,
        req.body ?? {},
        (created, options) =>
          (req.auditInfo = {
            targetId: created.id,
            collectionId: created.collection_id,
            detail: { export_id: created.id, chat_format: options.chat_format, dedupe: options.dedupe },
          }),
      );
      return reply
        .code(202)
        .header('Location', `/v1/collections/${row.collection_id}/exports/${row.id}`)
        .send({ export_id: row.id, status: 'queued' as const });
    },
  );
}
