import { Type } from 'typebox';
import type { App } from '../../../app.ts';
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
      return app.ctx.reads.audit.verify(req.caller.accountId, req.query.collection_id);
    },
  );
}
