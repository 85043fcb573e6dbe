import type { App } from '../../../app.ts';
import { runSummary } from '../../../sync/engine.ts';
import { errors, IdParams } from '../../schemas.ts';
import { requireLoaded } from './load.ts';
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
      // One statement for the collection and its latest run: a run that reads as finished has committed, and the
      // same snapshot shows the status that run left (a run's end and the collection's move are one transaction).
      const found = await app.ctx.repos.collections.getWithPairing(
        req.caller.accountId,
        req.params.id,
        req.caller.dbStamp,
      );
      const { collection, paired, latestRun, tally } = requireLoaded(app.ctx, found);
      const detail = collectionDetail(collection, paired, latestRun && runSummary(latestRun, tally));
      const connector = app.ctx.connectors.get(collection.type);
      if (!paired || !connector || (!connector.eventMode && !connector.missingPermissions)) return detail;
      const ctx = await app.ctx.providers.open(collection, connector);
      const filters = collection.sync_filters ? (JSON.parse(collection.sync_filters) as unknown) : null;
      // The scopes the saved filters use that the grant lacks, from the grant's facts (no provider request).
      if (connector.missingPermissions && filters !== null && connector.validateFilters(filters).length === 0) {
        const gaps = connector.missingPermissions(ctx.grantInfo, filters);
        if (gaps) Object.assign(detail, { missing_scopes: missingScopesView(gaps) });
      }
      return connector.eventMode ? Object.assign(detail, connector.eventMode(ctx.grantInfo, filters ?? {})) : detail;
    },
  );
}
