import type { App } from '../../../app.ts';
import { notFound } from '../../../domain/errors.ts';
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
      const w = await app.ctx.repos.wallets.get(req.caller.accountId, req.params.id);
      if (!w) throw notFound('Wallet');
      return walletView({ ...w, paired: w.sealed_grant !== null });
    },
  );
}
