import type { App } from '../../../app.ts';
import { Type } from 'typebox';
import { notFound } from '../../../domain/errors.ts';
import { errors, IdParams } from '../../schemas.ts';

export default function getWallet(app: App) {
  app.get(
    '/v1/wallet/:id',
    {
      schema: {
        tags: ['wallets'],
        summary: 'Read a wallet (never any secret)',
        params: IdParams,
        response: {
          200: Type.Object({
            onna_id: Type.String(),
            name: Type.String(),
            credential_type_name: Type.String(),
            config_type: Type.String(),
            paired: Type.Boolean({ description: 'Whether pairing has stored a grant.' }),
            paired_datetime: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
            creation_datetime: Type.String({ format: 'date-time' }),
          }),
          ...errors(401, 404, 429),
        },
      },
    },
    async (req) => {
      const w = await app.ctx.repos.wallets.get(req.caller.accountId, req.params.id);
      if (!w) throw notFound('Wallet');
      return {
        onna_id: w.id,
        name: w.name,
        credential_type_name: w.credential_type_name,
        config_type: w.config_type,
        paired: w.sealed_grant !== null,
        paired_datetime: w.paired_at,
        creation_datetime: w.created_at,
      };
    },
  );
}
