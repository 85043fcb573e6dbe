import type { App } from '../../../app.ts';
import { Type } from 'typebox';
import { conflict } from '../../../domain/errors.ts';
import { errors, IdParams } from '../../schemas.ts';
import { loadCollection } from './load.ts';
import { permissionGaps } from './permissions.ts';

export default function startCollection(app: App) {
  app.post(
    '/v1/collections/:id/start',
    {
      config: { audit: 'collection.start' },
      schema: {
        operationId: 'startCollection',
        tags: ['collections'],
        summary: 'Start a sync that pulls exactly what the filters allow',
        description:
          'A start while a run is active returns that run (`created: false`); there is never a second active run. 409 when filters or paired credentials are missing, or when the filters need a permission the paired grant lacks (the message names it and the feature).',
        params: IdParams,
        response: {
          200: Type.Object({ run_id: Type.String(), created: Type.Boolean(), sync_status: Type.String() }),
          ...errors(401, 404, 409, 429),
        },
      },
    },
    async (req) => {
      const { collection, connector } = await loadCollection(app.ctx, req.caller.accountId, req.params.id);
      const missing: string[] = [];
      if (collection.sync_filters === null) missing.push('sync filters (PATCH the collection)');
      const wallet = await app.ctx.repos.wallets.getById(collection.wallet_id);
      if (!wallet?.sealed_grant) missing.push('paired credentials (pair_credentials)');
      if (missing.length) throw conflict('not_ready', `cannot start: missing ${missing.join(' and ')}.`);
      const gap = (await permissionGaps(app, collection, connector, JSON.parse(collection.sync_filters!)))[0];
      if (gap) throw conflict('credentials', `cannot start: ${gap.message}.`);
      const { runId, created } = await app.ctx.engine.start(collection.id);
      const now = await app.ctx.repos.collections.getById(collection.id);
      return { run_id: runId, created, sync_status: now?.sync_status ?? 'syncing' };
    },
  );
}
