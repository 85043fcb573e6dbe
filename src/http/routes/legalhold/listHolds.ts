import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { errors, PageQuery } from '../../schemas.ts';
import { holdView, HoldView } from './views.ts';

export default function listHolds(app: App) {
  app.get(
    '/v1/legalhold/holds',
    {
      config: { rateLimit: 'none' },
      schema: {
        operationId: 'listHolds',
        tags: ['legalhold'],
        summary: "List the account's active legal holds",
        description: 'Oldest first. Released holds are not listed; the audit log keeps their history.',
        querystring: PageQuery,
        response: { 200: Type.Object({ items: Type.Array(HoldView), cursor: Type.Union([Type.String(), Type.Null()]) }), ...errors(400, 401) },
      },
    },
    async (req) => {
      const page = await app.ctx.repos.holds.list(req.caller.accountId, { cursor: req.query.cursor, limit: req.query.limit ?? 50 });
      return { items: page.rows.map(holdView), cursor: page.cursor };
    },
  );
}
