import type { AppContext } from '../context.ts';
import { notFound } from '../domain/errors.ts';
import type { Hold } from '../store/holds.ts';
import type { DeliveryRow, EndpointRow } from '../store/webhooks.ts';

export type { DeliveryRow, EndpointRow, Hold };

type Page = { cursor?: string; limit: number };

/** What an account owns besides its collections: workspaces, wallets, legal holds, webhook endpoints. */
export function createAccountReads(deps: Pick<AppContext, 'repos'>) {
  const { workspaces, wallets, holds, webhooks } = deps.repos;
  return {
    async workspace(accountId: string, id: string) {
      const ws = await workspaces.get(accountId, id);
      if (!ws) throw notFound('Workspace');
      return ws;
    },
    workspaces: (accountId: string, page: Page) => workspaces.list(accountId, page),

    /** The wallet, and whether a grant is paired to it (never the grant itself). */
    async wallet(accountId: string, id: string) {
      const w = await wallets.get(accountId, id);
      if (!w) throw notFound('Wallet');
      return { ...w, paired: w.sealed_grant !== null };
    },
    async wallets(accountId: string, page: Page) {
      const found = await wallets.list(accountId, page);
      return { rows: found.rows.map((w) => ({ ...w, paired: Boolean(w.has_grant) })), cursor: found.cursor };
    },

    async hold(accountId: string, id: string): Promise<Hold> {
      const hold = await holds.get(accountId, id);
      if (!hold) throw notFound('Legal hold');
      return hold;
    },
    holds: (accountId: string, q: Page & { status?: 'active' | 'released' }) => holds.list(accountId, q),

    async webhookEndpoint(accountId: string, id: string): Promise<EndpointRow> {
      const row = await webhooks.getEndpoint(accountId, id);
      if (!row) throw notFound('Webhook endpoint');
      return row;
    },
    webhookEndpoints: (accountId: string, page: Page) => webhooks.listEndpoints(accountId, page),
    async webhookDeliveries(accountId: string, endpointId: string, page: Page) {
      const endpoint = await webhooks.getEndpoint(accountId, endpointId);
      if (!endpoint) throw notFound('Webhook endpoint');
      return webhooks.listDeliveries(endpoint.id, page);
    },
  };
}
