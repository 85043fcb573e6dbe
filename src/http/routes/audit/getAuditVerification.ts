import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { notFound } from '../../../domain/errors.ts';
import { errors } from '../../schemas.ts';

const Break = Type.Object({
  collection_id: Type.Union([Type.String(), Type.Null()], {
    description: "The chain that is broken (null: the account's).",
  }),
  seq: Type.Integer({ description: 'The first position where the chain does not hold.' }),
  id: Type.Union([Type.String(), Type.Null()], { description: 'The entry found there, if any.' }),
  reason: Type.String(),
});

export default function getAuditVerification(app: App) {
  app.get(
    '/v1/audit/verification',
    {
      schema: {
        operationId: 'getAuditVerification',
        tags: ['audit'],
        summary: 'Verify the audit chains',
        description:
          "Recomputes every entry's hash and checks each chain's positions and links, and that every head recorded elsewhere (the chain's head, " +
          "each export's signed `audit_head`) is still there. Without `collection_id`: every chain of the account; `head_hash` is then the account chain's head.",
        querystring: Type.Object({ collection_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) }),
        response: {
          200: Type.Object({
            valid: Type.Boolean(),
            entries: Type.Integer(),
            head_hash: Type.String(),
            broken_at: Type.Union([Break, Type.Null()]),
          }),
          ...errors(400, 401, 404, 429),
        },
      },
    },
    async (req) => {
      const { collection_id } = req.query;
      if (collection_id) {
        const c = await app.ctx.db
          .selectFrom('collections')
          .select('account_id')
          .where('id', '=', collection_id)
          .executeTakeFirst();
        const audited = c
          ? c.account_id === req.caller.accountId
          : Boolean(await app.ctx.repos.audit.head(`collection:${collection_id}`)) &&
            (await app.ctx.repos.audit.chain(`collection:${collection_id}`)).some(
              (e) => e.account_id === req.caller.accountId,
            );
        if (!audited) throw notFound('Collection');
      }
      return app.ctx.repos.audit.verify(req.caller.accountId, collection_id);
    },
  );
}
