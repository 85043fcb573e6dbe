// Team Chat legal hold (see seed-legal-hold.ts for the shapes' source): the account's matters, a held user's
// exported files of a matter (`identifier`: the user's id or e-mail, required), and an export's zip by `file_key`.
// Zoom labels these RESOURCE-INTENSIVE; the sandbox counts them as Heavy.
import type { FastifyInstance } from 'fastify';
import { guard, zoomError, type Query, type RouteSpec, type SandboxContext } from './http.ts';
import { pageSize } from './paging.ts';

const LEGACY = 'chat_history_legal_hold:read:admin';
const MATTERS: RouteSpec = { category: 'Heavy', scopes: ['team_chat:read:list_legal_hold_matters:admin', LEGACY] };
const FILES: RouteSpec = { category: 'Heavy', scopes: ['team_chat:read:list_legal_hold_matter_files:admin', LEGACY] };
const DOWNLOAD: RouteSpec = { category: 'Heavy', scopes: ['team_chat:read:legal_hold_matter_file:admin', LEGACY] };
const EXPIRED = 'The next page token is either invalid or has expired.';

type MatterParams = { Params: { matterId: string } };

export function registerLegalHoldRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  app.get('/v2/chat/legalhold/matters', async (req, reply) => {
    if (!guard(ctx, req, reply, MATTERS)) return reply;
    const q = req.query as Query;
    const size = pageSize(q.page_size, 30, 300);
    if (size === undefined) return zoomError(reply, 400, 300, 'Invalid field: page_size.');
    const page = ctx.pages.paginate(ctx.tenant.legalHoldMatters, size, q.next_page_token || undefined, 'matters');
    if (!page) return zoomError(reply, 400, 300, EXPIRED);
    return {
      page_size: size,
      next_page_token: page.next_page_token,
      legal_hold_matters: page.items.map((m) => ({
        matter_id: m.matter_id,
        matter_name: m.matter_name,
        matter_start_date: m.matter_start_date,
        matter_end_date: m.matter_end_date,
        matter_creation_date: m.matter_creation_date,
        matter_users: m.userIds.map((id) => ({ user_id: id, email: ctx.tenant.anyUser(id)?.email ?? '' })),
      })),
    };
  });

  app.get<MatterParams>('/v2/chat/legalhold/matters/:matterId/files', async (req, reply) => {
    if (!guard(ctx, req, reply, FILES)) return reply;
    const q = req.query as Query;
    const size = pageSize(q.page_size, 30, 300);
    if (size === undefined) return zoomError(reply, 400, 300, 'Invalid field: page_size.');
    const matter = ctx.tenant.legalHoldMatters.find((m) => m.matter_id === req.params.matterId);
    if (!matter) return zoomError(reply, 404, 300, `Legal hold matter does not exist: ${req.params.matterId}.`);
    if (!q.identifier) return zoomError(reply, 400, 300, 'Invalid field: identifier.');
    const user = ctx.tenant.anyUser(q.identifier);
    const files = user ? matter.files.filter((f) => f.userId === user.id) : [];
    const binding = `matter-files|${matter.matter_id}|${user?.id ?? ''}`;
    const page = ctx.pages.paginate(files, size, q.next_page_token || undefined, binding);
    if (!page) return zoomError(reply, 400, 300, EXPIRED);
    return {
      page_size: size,
      next_page_token: page.next_page_token,
      data: page.items.map((f) => ({
        file_key: f.file_key,
        file_count: f.file_count,
        file_start_date: f.file_start_date,
        file_end_date: f.file_end_date,
        ready_for_download: f.ready_for_download,
        total_file_size: ctx.tenant.textBodies.get(f.file_key)?.length ?? 0,
      })),
    };
  });

  app.get<MatterParams>('/v2/chat/legalhold/matters/:matterId/files/download', async (req, reply) => {
    if (!guard(ctx, req, reply, DOWNLOAD)) return reply;
    const q = req.query as Query;
    const matter = ctx.tenant.legalHoldMatters.find((m) => m.matter_id === req.params.matterId);
    const file = matter?.files.find((f) => f.file_key === q.file_key);
    if (!file) return zoomError(reply, 404, 300, 'File does not exist.');
    if (!file.ready_for_download) return zoomError(reply, 400, 300, 'The file is not ready for download.');
    return reply.code(200).type('application/zip').send(ctx.tenant.textBodies.get(file.file_key));
  });
}
