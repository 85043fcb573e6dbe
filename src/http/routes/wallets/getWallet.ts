import type { App } from '../../../app.ts';
import { errors, IdParams } from '../../schemas.ts';
import { WalletView, walletView } from './views.ts';

export default function getWallet(app: App) {
  app.get(
    '/v1/wallet/:id',
    {
      schema: {
        operationId: 'getWallet',
        tags: ['wallets'],
        summary: 'Read a wallet (never any secret)',
        params: IdParams,
        response: {
          200: WalletView,
          ...errors(401, 404, 429),
        },
      },
    },
    async (req) => {
      return walletView(await app.ctx.reads.account.wallet(req.caller.accountId, req.params.id));
    },
  );
}
