import type { App } from '../../../app.ts';
import { notFound } from '../../../domain/errors.ts';
import { getHold as findHold } from '../../../store/holds.ts';
import { errors, IdParams } from '../../schemas.ts';
import { holdView, HoldView } from './views.ts';

export default function getHold(app: App) {
  app.get(
    '/v1/legalhold/holds/:id',
    {
      config: { rateLimit: 'none' },
      schema: { tags: ['legalhold'], summary: 'Read an active legal hold', params: IdParams, response: { 200: HoldView, ...errors(401, 404) } },
    },
    async (req) => {
      const hold = await findHold(app.ctx.db, req.caller.accountId, req.params.id);
      if (!hold) throw notFound('Legal hold');
      return holdView(hold);
    },
  );
}
