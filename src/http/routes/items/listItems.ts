import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { errors, IdParams, PageQuery } from '../../schemas.ts';
import { Item } from './schemas.ts';

/** `conf: meeting, …; edrive: file, folder`: the kinds each registered connector produces. */
function kindsByType(connectors: App['ctx']['connectors']): string {
  return connectors
    .types()
    .map((t) => `${t}: ${(connectors.get(t)?.kinds ?? []).join(', ')}`)
    .join('; ');
}

export default function listItems(app: App) {
  const registry = app.ctx.connectors;
  app.get(
    '/v1/collections/:id/items',
    {
      schema: {
        operationId: 'listItems',
        tags: ['items'],
        summary: "List a collection's items",
        description: 'Oldest first. Items an `auto` collection tombstoned (deleted at the source) are not listed.',
        params: IdParams,
        querystring: Type.Object({
          ...PageQuery.properties,
          kind: Type.Optional(
            Type.String({
              maxLength: 64,
              description: `Only items of this kind; the collection type decides which kinds exist (${kindsByType(registry)}). Another value answers 400.`,
            }),
          ),
          custodian: Type.Optional(
            Type.String({
              maxLength: 256,
              description: "The custodian's provider user id, or their e-mail (any case).",
            }),
          ),
        }),
        response: {
          200: Type.Object({ items: Type.Array(Item), cursor: Type.Union([Type.String(), Type.Null()]) }),
          ...errors(400, 401, 404, 429),
        },
      },
    },
    async (req) => {
      const { kind, custodian, cursor, limit } = req.query;
      return app.ctx.reads.items.list(req.caller.accountId, req.params.id, {
        kind,
        custodian,
        cursor,
        limit: limit ?? 50,
      });
    },
  );
}
