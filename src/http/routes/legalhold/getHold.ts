import type { App } from '../../../app.ts';
import { notFound } from '../../../domain/errors.ts';
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
      const hold = await app.ctx.repos.holds.get(req.caller.accountId, req.params.id);
      if (!hold) throw notFound('Legal hold');
      return holdView(hold);
    },
  );
}
