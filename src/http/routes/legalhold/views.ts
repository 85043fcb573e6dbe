import { Type } from 'typebox';
import type { Hold } from '../../../read/account.ts';

export const PRESERVATION_NOTE = `
A legal hold freezes deletion: while an active hold covers a collection (listed in \`collection_ids\`, or through
the hold's \`workspace_id\`, which also covers collections created later in that workspace), \`DELETE\` of the
collection or of its workspace answers 409 naming the hold, and an \`auto\` sync that sees an item deleted at the
source only tombstones it (hidden from lists and search unless \`include_deleted\`) and never purges its content.
Releasing the hold (\`DELETE /v1/legalhold/holds/{id}\`) lifts this: content an \`auto\` collection kept only
because of the hold (items the source deleted) is purged at once, unless another active hold still covers the
collection; the blob itself goes when nothing else references it. Nothing under \`/v1/legalhold/\` is rate limited.

\`scopes_type=preservation\` on \`GET /v1/collections/authorization_url/conf\` is a different thing: it asks the
provider for the preservation OAuth scopes used by in-place legal-hold flows at the source. It does not create a
hold here, and a hold does not need it: holds act on what this service has collected, whatever scopes paired it.
`;

export const HoldView = Type.Object({
  onna_id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  workspace_id: Type.Union([Type.String(), Type.Null()], {
    description: 'Covers every collection of this workspace, present and future.',
  }),
  collection_ids: Type.Array(Type.String()),
  status: Type.Union([Type.Literal('active'), Type.Literal('released')], {
    description: 'A released hold stays readable, with its history.',
  }),
  creation_datetime: Type.String({ format: 'date-time' }),
  created_by: Type.Union([Type.String(), Type.Null()], { description: 'The API client that placed it.' }),
  released_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  released_by: Type.Union([Type.String(), Type.Null()], { description: 'The API client that released it.' }),
});

export function holdView(h: Hold) {
  return {
    onna_id: h.id,
    name: h.name,
    description: h.description,
    workspace_id: h.workspace_id,
    collection_ids: h.collection_ids,
    status: h.released_at === null ? ('active' as const) : ('released' as const),
    creation_datetime: h.created_at,
    created_by: h.created_by_client,
    released_at: h.released_at,
    released_by: h.released_by_client,
  };
}
