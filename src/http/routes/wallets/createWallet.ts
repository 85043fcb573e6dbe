import type { App } from '../../../app.ts';
import { Type } from 'typebox';
import { Created, errors } from '../../schemas.ts';

export default function createWallet(app: App) {
  app.post(
    '/v1/wallet',
    {
      config: { audit: 'wallet.create' },
      schema: {
        operationId: 'createWallet',
        tags: ['wallets'],
        summary: 'Create an empty credential wallet',
        description:
          'A wallet is created empty; pairing fills it. `config_type` is the collection type it serves: `conf` (Zoom) or `edrive` (OneDrive for Business).',
        body: Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 200 }),
            credential_type_name: Type.String({ minLength: 1, maxLength: 100, examples: ['Datasource'] }),
            config_type: Type.String({ minLength: 1, maxLength: 50, examples: ['conf', 'edrive'] }),
          },
          { additionalProperties: false },
        ),
        response: { 201: Created, ...errors(400, 401, 429) },
      },
    },
    async (req, reply) => {
      const id = await app.ctx.services.account.createWallet(req.caller.accountId, req.body);
      return reply.code(201).send({ onna_id: id });
    },
  );
}
