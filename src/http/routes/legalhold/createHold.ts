import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { Created, errors } from '../../schemas.ts';
import { PRESERVATION_NOTE } from './views.ts';

export default function createHold(app: App) {
  app.post(
    '/v1/legalhold/holds',
    {
      config: { rateLimit: 'none', audit: 'legalhold.create' },
      schema: {
        operationId: 'createHold',
        tags: ['legalhold'],
        summary: 'Place a legal hold on collections and/or a workspace',
        description: `Needs \`collection_ids\`, \`workspace_id\` or both; each must exist in the caller's account.\n${PRESERVATION_NOTE}`,
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 200 }),
            description: Type.Optional(Type.String({ maxLength: 2000 })),
            collection_ids: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 500 })),
            workspace_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
          },
          { additionalProperties: false },
        ),
        response: { 201: Created, ...errors(400, 401, 404) },
      },
    },
    async (req, reply) => {
      const id = await app.ctx.services.holds.create(req.caller.accountId, req.caller.clientId, req.body);
      return reply.code(201).send({ onna_id: id });
    },
  );
}
