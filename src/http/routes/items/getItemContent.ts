import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { createSyncQueries } from '../../../sync/queries.ts';
import { errors } from '../../schemas.ts';
import { ownCollection } from './own.ts';
import { ItemParams } from './schemas.ts';

const binary = (description: string) => ({ description, content: { '*/*': { schema: { type: 'string', format: 'binary' } } } });

/** RFC 5987 ext-value: encodeURIComponent leaves ' ( ) * unescaped, which attr-char does not allow. */
const rfc5987 = (name: string) => encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export default function getItemContent(app: App) {
  const queries = createSyncQueries(app.ctx);
  app.get(
    '/v1/collections/:id/items/:item_id/content',
    {
      schema: {
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
      const etag = async () => `"${(await queries.getItem(collection.id, req.params.item_id)).sha256}"`;
      const ifNoneMatch = req.headers['if-none-match'];
      if (ifNoneMatch && ifNoneMatch.split(',').map((t) => t.trim().replace(/^W\//, '')).includes(await etag())) {
        return reply.code(304).header('ETag', await etag()).send(null);
      }
      const { item, size, range, body } = await queries.openContent(collection.id, req.params.item_id, req.headers.range);
      reply
        .header('ETag', `"${item.sha256}"`)
        .header('Accept-Ranges', 'bytes')
        .header('Content-Type', item.mime_type ?? 'application/octet-stream')
        .header('Content-Disposition', `attachment; filename*=UTF-8''${rfc5987(item.name)}`)
        .header('X-Content-Type-Options', 'nosniff');
      if (range) {
        reply.code(206).header('Content-Range', `bytes ${range.start}-${range.end}/${size}`).header('Content-Length', range.end - range.start + 1);
      } else {
        reply.header('Content-Length', size);
      }
      return reply.send(body);
    },
  );
}
