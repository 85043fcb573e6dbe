import type { Connector, Grant } from '../connectors/types.ts';
import { conflict, invalidInput, notFound } from '../domain/errors.ts';
import { randomToken } from '../domain/seal.ts';
import type { EndpointRow } from '../store/webhooks.ts';
import { deleteCollections, finishWorkspaceDeletion } from '../sync/deletion/deletion.ts';
import { checkTarget } from '../webhooks/send.ts';
import type { ServiceDeps } from './deps.ts';

export type ProviderRevocation = 'revoked' | 'not_offered' | 'failed' | 'not_paired';

/** Workspaces, wallets and webhook endpoints of the caller's account: created and deleted here. */
export function createAccountService(deps: ServiceDeps) {
  /**
   * Revocation at the provider, for a connector whose OAuth offers it (`oauth.revoke`). Zoom does: its
   * `POST /oauth/revoke` ends the user authorization (access and refresh tokens). Microsoft does not: an `edrive`
   * grant is a tenant administrator's admin consent used with app-only tokens, which Graph cannot revoke per app
   * (`revokeSignInSessions` signs a user out everywhere, which is not ours to do); the tenant removes the enterprise
   * application to withdraw it. Best effort, after the wallet is gone: a refusal never keeps the wallet.
   */
  async function revokeAtProvider(
    connector: Connector | undefined,
    sealedGrant: string | null,
  ): Promise<ProviderRevocation> {
    if (!sealedGrant) return 'not_paired';
    const oauth = connector?.oauth;
    if (!oauth?.revoke) return 'not_offered';
    try {
      await oauth.revoke(deps.sealer.open<Grant>(sealedGrant));
      return 'revoked';
    } catch (err) {
      deps.log.warn(
        { err_name: (err as Error).name },
        'revoking a grant at the provider failed; the wallet is deleted all the same',
      );
      return 'failed';
    }
  }

  return {
    createWorkspace(accountId: string, input: { name: string; description: string }): Promise<string> {
      return deps.repos.workspaces.create(accountId, input);
    },

    /** Cancels its running syncs and deletes its collections (409 while a legal hold covers it), then itself. */
    async deleteWorkspace(accountId: string, id: string): Promise<void> {
      const ws = await deps.repos.workspaces.get(accountId, id);
      if (!ws) throw notFound('Workspace');
      const ids = await deps.repos.collections.idsByWorkspace(ws.id);
      await deleteCollections(deps, { accountId, collectionIds: ids, workspaceId: ws.id });
      await finishWorkspaceDeletion(
        { engine: deps.engine, collections: deps.repos.collections, workspaces: deps.repos.workspaces },
        ws.id,
      );
    },

    createWallet(
      accountId: string,
      input: { name: string; credential_type_name: string; config_type: string },
    ): Promise<string> {
      const types = deps.connectors.types().map((t) => deps.connectors.get(t)!.configType);
      if (!types.includes(input.config_type))
        throw invalidInput(`config_type must be one of ${types.join(', ')}.`, 'config_type');
      return deps.repos.wallets.create(accountId, input);
    },

    /** Deletes an unused wallet (409 while a collection uses it), then revokes its grant where the provider can. */
    async deleteWallet(accountId: string, id: string): Promise<{ configType: string; revocation: ProviderRevocation }> {
      const wallet = await deps.repos.wallets.get(accountId, id);
      if (!wallet) throw notFound('Wallet');
      const result = await deps.repos.wallets.delete(accountId, wallet.id);
      if (!result) throw notFound('Wallet');
      if (result.users.length > 0) {
        const names = result.users.map((u) => (u.deleting ? `${u.id} (being deleted)` : u.id));
        throw conflict(
          'in_use',
          `wallet ${wallet.id} is used by collection${names.length > 1 ? 's' : ''} ${names.join(', ')}; delete ${names.length > 1 ? 'them' : 'it'} first (DELETE /v1/collections/{id}).`,
        );
      }
      const connector = deps.connectors
        .types()
        .map((t) => deps.connectors.get(t)!)
        .find((c) => c.configType === wallet.config_type);
      const revocation = await revokeAtProvider(connector, wallet.sealed_grant);
      deps.providers.forget(wallet.id);
      return { configType: wallet.config_type, revocation };
    },

    /** A new endpoint and its signing secret, shown this once. */
    async createWebhookEndpoint(
      accountId: string,
      input: { url: string; events: string[] },
    ): Promise<{ row: EndpointRow; secret: string }> {
      const problem = await checkTarget(input.url, deps.config.webhooks.allowPrivate);
      if (problem) throw invalidInput(`url ${problem}`, 'url');
      const secret = `whsec_${randomToken(32)}`;
      const row = await deps.repos.webhooks.createEndpoint(accountId, {
        url: input.url,
        events: input.events,
        sealedSecret: deps.sealer.seal(secret),
        at: new Date().toISOString(),
      });
      return { row, secret };
    },

    async deleteWebhookEndpoint(accountId: string, id: string): Promise<void> {
      if (!(await deps.repos.webhooks.deleteEndpoint(accountId, id, new Date().toISOString())))
        throw notFound('Webhook endpoint');
    },
  };
}
