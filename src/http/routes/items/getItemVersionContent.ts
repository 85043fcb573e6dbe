import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { createSyncQueries } from '../../../sync/queries.ts';
import { errors } from '../../schemas.ts';
import { binary, matchesEtag, sendContent } from './content-reply.ts';
import { ownCollection } from './own.ts';
import { VersionParams } from './schemas.ts';

export default function getItemVersionContent(app: App) {
  const queries = createSyncQueries(app.ctx);
  app.get(
    '/v1/collections/:id/items/:item_id/versions/:version_number/content',
    {
      schema: {
        operationId: 'getItemVersionContent',
        tags: ['items'],
        summary: "Download a superseded version's content",
        description:
          'Like the item content download (`ETag` = SHA-256, `If-None-Match`, `Range`), for one of the versions GET …/versions lists. ' +
          '404 when there is no such version or its content is not kept (`content_available: false`).',
        params: VersionParams,
        headers: Type.Object({ range: Type.Optional(Type.String()), 'if-none-match': Type.Optional(Type.String()) }),
        response: {
          200: binary("The version's content, with the Content-Type recorded for it."),
          206: binary('The requested range of the content.'),
          304: Type.Null({ description: 'Not modified' }),
          ...errors(400, 401, 404, 416, 429),
        },
      },
    },
    async (req, reply) => {
      const { collection } = await ownCollection(app.ctx, req.caller.accountId, req.params.id);
      const { item_id, version_number } = req.params;
      const ifNoneMatch = req.headers['if-none-match'];
      if (ifNoneMatch) {
        const { versions } = await queries.listVersions(collection.id, item_id);
        const sha256 = versions[version_number - 1]?.content_available ? versions[version_number - 1]!.sha256 : null;
        if (matchesEtag(ifNoneMatch, sha256)) return reply.code(304).header('ETag', `"${sha256}"`).send(null);
      }
      const { version, sha256, size, range, body } = await queries.openVersionContent(collection.id, item_id, version_number, req.headers.range);
      return sendContent(reply, { sha256, name: version.name, mime_type: version.mime_type }, size, range, body);
    },
  );
}
