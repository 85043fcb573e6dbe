import type { App } from '../../../app.ts';
import { Type } from 'typebox';
import { notFound } from '../../../domain/errors.ts';
import { badRequest } from '../../errors.ts';
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
      const { accountId } = req.caller;
      const { name, onna_parent_id, type, credential_id } = req.body;
      const connector = app.ctx.connectors.get(type);
      if (!connector) throw badRequest(`type must be one of ${app.ctx.connectors.types().join(', ')}.`, '/body/type');
      if (!(await app.ctx.repos.workspaces.get(accountId, onna_parent_id))) {
        throw notFound('Workspace', 'onna_parent_id');
      }
      const wallet = await app.ctx.repos.wallets.get(accountId, credential_id);
      if (!wallet) throw notFound('Wallet', 'credential_id');
      if (wallet.config_type !== connector.configType) {
        throw badRequest(
          `the wallet's config_type is "${wallet.config_type}"; a ${type} collection needs a wallet with config_type "${connector.configType}".`,
          '/body/credential_id',
        );
      }
      const id = await app.ctx.repos.collections.create(accountId, {
        name,
        workspace_id: onna_parent_id,
        wallet_id: credential_id,
        type,
      });
      return reply.code(201).send({ onna_id: id, type });
    },
  );
}
