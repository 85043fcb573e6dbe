import type { App } from '../../../app.ts';
import { Type } from 'typebox';
import { errors, PageQuery } from '../../schemas.ts';
import { WalletView, walletView } from './views.ts';

export default function listWallets(app: App) {
  app.get(
    '/v1/wallet',
    {
      schema: {
        operationId: 'listWallets',
        tags: ['wallets'],
        summary: "List the account's wallets (never any secret)",
        description: 'Oldest first, paged with `cursor`.',
        querystring: PageQuery,
        response: {
          200: Type.Object({ items: Type.Array(WalletView), cursor: Type.Union([Type.String(), Type.Null()]) }),
          ...errors(400, 401, 429),
        },
      },
    },
    async (req) => {
      const page = await app.ctx.reads.account.wallets(req.caller.accountId, {
        cursor: req.query.cursor,
        limit: req.query.limit ?? 50,
      });
      return { items: page.rows.map(walletView), cursor: page.cursor };
    },
  );
}
