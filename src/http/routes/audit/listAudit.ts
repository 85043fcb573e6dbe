import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { auditView } from '../../../domain/audit-chain.ts';
import { errors } from '../../schemas.ts';

const AuditEntry = Type.Object({
  id: Type.String(),
  datetime: Type.String({ format: 'date-time' }),
  account_id: Type.String(),
  client_id: Type.Union([Type.String(), Type.Null()], {
    description: 'The API client that acted; null for run events.',
  }),
  action: Type.String({ examples: ['collection.delete', 'legalhold.create', 'token.refresh', 'run.finish'] }),
  target_id: Type.Union([Type.String(), Type.Null()]),
  outcome: Type.String({ description: '`success` or `failure` for API calls; for runs the run status.' }),
  status_code: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status of an API call.' }),
  correlation_id: Type.Union([Type.String(), Type.Null()]),
  detail: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
    description: 'Non-secret facts: body field names, run id, trigger.',
  }),
  collection_id: Type.Union([Type.String(), Type.Null()], {
    description: "The collection whose chain holds the entry; null: the account's chain.",
  }),
  seq: Type.Integer({ minimum: 1, description: 'Position in its chain, from 1.' }),
  prev_hash: Type.String({
    pattern: '^[0-9a-f]{64}$',
    description: "The previous entry's `hash`; 64 zeros for the first.",
  }),
  hash: Type.String({
    pattern: '^[0-9a-f]{64}$',
    description: 'Lowercase hex SHA-256 of the RFC 8785 canonical JSON of this entry without `hash`.',
  }),
});

const DESCRIPTION = `Newest first. Every state-changing API call (create, patch, start, pair, delete, hold, release, token issue,
refresh and revocation), every content download (each answered request, range requests included), every manifest
and reconciliation export, and every sync run's start and finish is recorded once, with its outcome; secrets never
are. Calls refused with 401 (no known caller) or 429 (never processed) are not recorded. The log is append-only:
no API edits or deletes an entry, and deleting a workspace or collection keeps its trail.
Actions: workspace.create, workspace.delete, wallet.create, wallet.delete, collection.create, collection.update, collection.start,
collection.pair, collection.delete, legalhold.create, legalhold.release, token.issue, token.refresh, token.revoke,
content.download, manifest.export, reconciliation.export, run.start, run.finish, export.create, export.download,
export.finish, export.cancel.
Entries form tamper-evident chains (one per collection, one per account): see GET /v1/audit/verification.`;

export default function listAudit(app: App) {
  app.get(
    '/v1/audit',
    {
      schema: {
        operationId: 'listAudit',
        tags: ['audit'],
        summary: "The account's audit log",
        description: DESCRIPTION,
        querystring: Type.Object({
          cursor: Type.Optional(Type.String({ maxLength: 64, description: 'The `cursor` of the previous page.' })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
          action: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
          target: Type.Optional(
            Type.String({ minLength: 1, maxLength: 200, description: 'Only entries about this id.' }),
          ),
        }),
        response: {
          200: Type.Object({ items: Type.Array(AuditEntry), cursor: Type.Union([Type.String(), Type.Null()]) }),
          ...errors(400, 401, 429),
        },
      },
    },
    async (req) => {
      const { cursor, limit, action, target } = req.query;
      const page = await app.ctx.reads.audit.list(req.caller.accountId, { cursor, limit: limit ?? 50, action, target });
      return { items: page.rows.map(auditView), cursor: page.cursor };
    },
  );
}
