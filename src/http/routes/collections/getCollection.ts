import type { App } from '../../../app.ts';
import { runSummary } from '../../../read/run-summary.ts';
import { errors, IdParams } from '../../schemas.ts';
import { missingScopesView } from './permissions.ts';
import { CollectionDetail, collectionDetail } from './views.ts';

export default function getCollection(app: App) {
  app.get(
    '/v1/collections/:id',
    {
      schema: {
        operationId: 'getCollection',
        tags: ['collections'],
        summary: 'Read a collection',
        params: IdParams,
        response: { 200: CollectionDetail, ...errors(401, 404, 429) },
      },
    },
    async (req) => {
      const { collection, paired, latestRun, tally, missingScopes, eventMode } = await app.ctx.reads.collections.detail(
        req.caller.accountId,
        req.params.id,
        req.caller.dbStamp,
      );
      const detail = collectionDetail(collection, paired, latestRun && runSummary(latestRun, tally));
      if (missingScopes) Object.assign(detail, { missing_scopes: missingScopesView(missingScopes) });
      return eventMode ? Object.assign(detail, eventMode) : detail;
    },
  );
}
