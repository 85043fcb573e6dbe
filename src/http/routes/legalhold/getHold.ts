import type { App } from '../../../app.ts';
import { errors, IdParams } from '../../schemas.ts';
import { holdView, HoldView } from './views.ts';

export default function getHold(app: App) {
  app.get(
    '/v1/legalhold/holds/:id',
    {
      config: { rateLimit: 'none' },
      schema: {
        operationId: 'getHold',
        tags: ['legalhold'],
        summary: 'Read a legal hold, active or released',
        params: IdParams,
        response: { 200: HoldView, ...errors(401, 404) },
      },
    },
    async (req) => {
      return holdView(await app.ctx.reads.account.hold(req.caller.accountId, req.params.id));
    },
  );
}
