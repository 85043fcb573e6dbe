import type { App } from '../../../app.ts';
import { Type } from 'typebox';
import { Created, errors } from '../../schemas.ts';

export default function createWorkspace(app: App) {
  app.post(
    '/v1/workspaces',
    {
      config: { audit: 'workspace.create' },
      schema: {
        operationId: 'createWorkspace',
        tags: ['workspaces'],
        summary: 'Create a workspace',
        body: Type.Object(
          { name: Type.String({ minLength: 1, maxLength: 200 }), description: Type.String({ maxLength: 2000 }) },
          { additionalProperties: false },
        ),
        response: { 201: Created, ...errors(400, 401, 429) },
      },
    },
    async (req, reply) => {
      const id = await app.ctx.services.account.createWorkspace(req.caller.accountId, req.body);
      return reply.code(201).send({ onna_id: id });
    },
  );
}
