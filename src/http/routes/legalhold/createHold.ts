import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { notFound } from '../../../domain/errors.ts';
import { badRequest } from '../../errors.ts';
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
      const { accountId, clientId } = req.caller;
      const { name, description = '', collection_ids = [], workspace_id } = req.body;
      if (collection_ids.length === 0 && !workspace_id)
        throw badRequest('a hold needs collection_ids, workspace_id or both.', '/body/collection_ids');
      if (workspace_id && !(await app.ctx.repos.workspaces.get(accountId, workspace_id))) {
        throw notFound('Workspace', 'workspace_id');
      }
      for (const [i, id] of collection_ids.entries()) {
        if (!(await app.ctx.repos.collections.get(accountId, id))) {
          throw notFound(`Collection ${id}`, `collection_ids/${i}`);
        }
      }
      const id = await app.ctx.repos.holds.create(accountId, {
        name,
        description,
        workspaceId: workspace_id ?? null,
        collectionIds: collection_ids,
        clientId,
      });
      return reply.code(201).send({ onna_id: id });
    },
  );
}
