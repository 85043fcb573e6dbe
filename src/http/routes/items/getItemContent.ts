import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { createSyncQueries } from '../../../sync/queries.ts';
import { errors } from '../../schemas.ts';
import { binary, matchesEtag, sendContent } from './content-reply.ts';
import { ownCollection } from './own.ts';
import { ItemParams } from './schemas.ts';

export default function getItemContent(app: App) {
  const queries = createSyncQueries(app.ctx);
  app.get(
    '/v1/collections/:id/items/:item_id/content',
    {
      schema: {
        operationId: 'getItemContent',
        tags: ['items'],
        summary: "Download an item's content",
        description:
          'Streams the stored bytes. `ETag` is the SHA-256 (quoted); `If-None-Match` with it answers 304. A single `Range: bytes=…` answers 206 with `Content-Range`; an unsatisfiable one 416. 404 when the item has no content.',
        params: ItemParams,
        headers: Type.Object({ range: Type.Optional(Type.String()), 'if-none-match': Type.Optional(Type.String()) }),
        response: {
          200: binary('The content, with the Content-Type recorded for the item.'),
          206: binary('The requested range of the content.'),
          304: Type.Null({ description: 'Not modified' }),
          ...errors(401, 404, 416, 429),
        },
      },
    },
    async (req, reply) => {
      const { collection } = await ownCollection(app.ctx, req.caller.accountId, req.params.id);
      const ifNoneMatch = req.headers['if-none-match'];
      if (ifNoneMatch) {
        const { sha256 } = await queries.getItem(collection.id, req.params.item_id);
        if (matchesEtag(ifNoneMatch, sha256)) return reply.code(304).header('ETag', `"${sha256}"`).send(null);
      }
      const { item, size, range, body } = await queries.openContent(collection.id, req.params.item_id, req.headers.range);
      return sendContent(reply, { sha256: item.sha256!, name: item.name, mime_type: item.mime_type }, size, range, body);
    },
  );
}
