import type { FastifyInstance } from 'fastify';
import {
  guard,
  resolveUser,
  userNotFound,
  zoomError,
  type Query,
  type RouteSpec,
  type SandboxContext,
} from './http.ts';
import { pageSize } from './paging.ts';

const LIST_USERS: RouteSpec = { category: 'Medium', scopes: ['user:read:list_users:admin', 'user:read:admin'] };
const GET_USER: RouteSpec = {
  category: 'Light',
  scopes: ['user:read:user:admin', 'user:read:user', 'user:read:admin', 'user:read'],
};
const STATUSES = ['active', 'inactive', 'pending'];
const OPTIONAL_USER_FIELDS = [
  'dept',
  'last_client_version',
  'last_login_time',
  'pmi',
  'timezone',
  'verified',
  'language',
  'role_id',
  'display_name',
];

export function registerUserRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  app.get('/v2/users', async (req, reply) => {
    if (!guard(ctx, req, reply, LIST_USERS)) return reply;
    const q = req.query as Query;
    // Default is active only: deactivated users need status=inactive; deleted users are never listed.
    const status = q.status ?? 'active';
    if (!STATUSES.includes(status)) return zoomError(reply, 400, 300, `Invalid field: status.`);
    const size = pageSize(q.page_size, 30, 300);
    if (size === undefined) return zoomError(reply, 400, 300, 'Invalid field: page_size.');
    const users = ctx.tenant.users.filter((u) => u.status === status);
    const token = q.next_page_token || undefined;
    let page;
    if (!token && q.page_number && Number(q.page_number) > 1) {
      // Legacy page_number paging: still honoured, slices the same list.
      const start = (Number(q.page_number) - 1) * size;
      page = { items: users.slice(start, start + size), next_page_token: '', page_number: Number(q.page_number) };
    } else {
      page = ctx.pages.paginate(users, size, token, `users|${status}`);
    }
    if (!page) return zoomError(reply, 400, 300, 'The next page token is either invalid or has expired.');
    return {
      page_count: Math.ceil(users.length / size),
      page_number: page.page_number,
      page_size: size,
      total_records: users.length,
      next_page_token: page.next_page_token,
      users: ctx.variance
        ? page.items.map((u) => ctx.variance!.reshape({ ...u }, OPTIONAL_USER_FIELDS, u.id))
        : page.items,
    };
  });

  app.get<{ Params: { userId: string } }>('/v2/users/:userId', async (req, reply) => {
    const who = guard(ctx, req, reply, GET_USER);
    if (!who) return reply;
    const user = resolveUser(ctx, who, req.params.userId);
    if (!user) return userNotFound(reply, req.params.userId);
    return { ...user, account_id: ctx.tenant.accountId };
  });
}
