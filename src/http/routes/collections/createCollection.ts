import type { App } from '../../../app.ts';
import { Type } from 'typebox';
import { errors } from '../../schemas.ts';

export default function createCollection(app: App) {
  app.post(
    '/v1/collections',
    {
      config: { audit: 'collection.create' },
      schema: {
        operationId: 'createCollection',
        tags: ['collections'],
        summary: 'Create a collection in a workspace, bound to a wallet',
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 200 }),
            onna_parent_id: Type.String({ minLength: 1, description: 'The workspace.' }),
            type: Type.String({ minLength: 1, examples: ['conf', 'edrive'] }),
            credential_id: Type.String({ minLength: 1, description: 'A wallet whose config_type equals `type`.' }),
          },
          { additionalProperties: false },
        ),
        response: { 201: Type.Object({ onna_id: Type.String(), type: Type.String() }), ...errors(400, 401, 404, 429) },
      },
    },
    async (req, reply) => {
      const id = await app.ctx.services.collections.create(req.caller.accountId, req.body);
      return reply.code(201).send({ onna_id: id, type: req.body.type });
    },
  );
}
