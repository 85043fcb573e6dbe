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
        summary: "List the account's legal holds, active and released",
        description: 'Oldest first. `status=active` or `status=released` lists only those; without it, both.',
        querystring: Type.Object({
          ...PageQuery.properties,
          status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('released')])),
        }),
        response: {
          200: Type.Object({ items: Type.Array(HoldView), cursor: Type.Union([Type.String(), Type.Null()]) }),
          ...errors(400, 401),
        },
      },
    },
    async (req) => {
      const page = await app.ctx.reads.account.holds(req.caller.accountId, {
        cursor: req.query.cursor,
        limit: req.query.limit ?? 50,
        status: req.query.status,
      });
      return { items: page.rows.map(holdView), cursor: page.cursor };
    },
  );
}
