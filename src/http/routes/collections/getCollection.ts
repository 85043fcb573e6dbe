import type { App } from '../../../app.ts';
import { errors, IdParams } from '../../schemas.ts';
import { loadCollection } from './load.ts';
import { CollectionDetail, collectionDetail } from './views.ts';

export default function getCollection(app: App) {
  app.get(
    '/v1/collections/:id',
    {
      schema: { tags: ['collections'], summary: 'Read a collection', params: IdParams, response: { 200: CollectionDetail, ...errors(401, 404, 429) } },
    },
    async (req) => {
      const { collection } = await loadCollection(app.ctx, req.caller.accountId, req.params.id);
      const wallet = await app.ctx.repos.wallets.getById(collection.wallet_id);
      const latest = await app.ctx.engine.latestRun(collection.id);
      return collectionDetail(collection, Boolean(wallet?.sealed_grant), latest);
    },
  );
}
