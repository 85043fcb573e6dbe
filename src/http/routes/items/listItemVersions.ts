import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { errors } from '../../schemas.ts';
import { ItemParams, ItemVersion } from './schemas.ts';

export default function listItemVersions(app: App) {
  app.get(
    '/v1/collections/:id/items/:item_id/versions',
    {
      schema: {
        operationId: 'listItemVersions',
        tags: ['items'],
        summary: "An item's superseded versions",
        description:
          'Oldest first. An `arch` collection keeps every version of every item; any collection keeps them while a legal hold covers it ' +
          '(an `auto` or `one` collection drops their content, not their record, when the last hold is released). ' +
          'A version without content (a message, a meeting) keeps its text and metadata. The item itself is `current_version_number`.',
        params: ItemParams,
        response: {
          200: Type.Object({
            item_id: Type.String(),
            current_version_number: Type.Integer(),
            versions: Type.Array(ItemVersion),
          }),
          ...errors(401, 404, 429),
        },
      },
    },
    async (req) => {
      return app.ctx.reads.items.versions(req.caller.accountId, req.params.id, req.params.item_id);
    },
  );
}
