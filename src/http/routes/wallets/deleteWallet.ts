import type { App } from '../../../app.ts';
import type { Connector, Grant } from '../../../connectors/types.ts';
import { conflict, notFound } from '../../../domain/errors.ts';
import { errors, IdParams, NoContent } from '../../schemas.ts';

/**
 * Revocation at the provider, for a connector whose OAuth offers it (`oauth.revoke`). Zoom does: its
 * `POST /oauth/revoke` ends the user authorization (access and refresh tokens). Microsoft does not: an `edrive`
 * grant is a tenant administrator's admin consent used with app-only tokens, which Graph cannot revoke per app
 * (`revokeSignInSessions` signs a user out everywhere, which is not ours to do); the tenant removes the enterprise
 * application to withdraw it. Best effort, after the wallet is gone: a refusal never keeps the wallet.
 */
async function revokeAtProvider(
  app: App,
  connector: Connector | undefined,
  sealedGrant: string | null,
): Promise<'revoked' | 'not_offered' | 'failed' | 'not_paired'> {
  if (!sealedGrant) return 'not_paired';
  const oauth = connector?.oauth;
  if (!oauth?.revoke) return 'not_offered';
  try {
    await oauth.revoke(app.ctx.sealer.open<Grant>(sealedGrant));
    return 'revoked';
  } catch (err) {
    app.log.warn(
      { err_name: (err as Error).name },
      'revoking a grant at the provider failed; the wallet is deleted all the same',
    );
    return 'failed';
  }
}

export default function deleteWallet(app: App) {
  app.delete(
    '/v1/wallet/:id',
    {
      config: { audit: 'wallet.delete' },
      schema: {
        operationId: 'deleteWallet',
        tags: ['wallets'],
        summary: 'Delete a wallet and its stored grant',
        description:
          'Removes the provider connection: the stored grant is erased with the wallet. 409 (`00409_in_use`) while a collection uses the wallet ' +
          '(delete the collection first, or wait until its deletion has finished). Where the provider offers revocation the grant is then revoked there ' +
          '(best effort: a failed revocation does not keep the wallet; the audit entry records `provider_revocation`: `revoked`, `failed`, ' +
          '`not_offered` or `not_paired`). A Zoom (`conf`) grant is revoked at Zoom (`POST /oauth/revoke`). A Microsoft (`edrive`) grant is an ' +
          "administrator's tenant-wide consent, which Graph offers no way to revoke per application: remove the enterprise application in Microsoft Entra to withdraw it.",
        params: IdParams,
        response: { 204: NoContent, ...errors(401, 404, 409, 429) },
      },
    },
    async (req, reply) => {
      const { accountId } = req.caller;
      const wallet = await app.ctx.repos.wallets.get(accountId, req.params.id);
      if (!wallet) throw notFound('Wallet');
      const result = await app.ctx.repos.wallets.delete(accountId, wallet.id);
      if (!result) throw notFound('Wallet');
      if (result.users.length > 0) {
        const names = result.users.map((u) => (u.deleting ? `${u.id} (being deleted)` : u.id));
        throw conflict(
          'in_use',
          `wallet ${wallet.id} is used by collection${names.length > 1 ? 's' : ''} ${names.join(', ')}; delete ${names.length > 1 ? 'them' : 'it'} first (DELETE /v1/collections/{id}).`,
        );
      }
      const connector = app.ctx.connectors
        .types()
        .map((t) => app.ctx.connectors.get(t)!)
        .find((c) => c.configType === wallet.config_type);
      const revocation = await revokeAtProvider(app, connector, wallet.sealed_grant);
      app.ctx.providers.forget(wallet.id);
      req.auditInfo = { detail: { config_type: wallet.config_type, provider_revocation: revocation } };
      return reply.code(204).send(null);
    },
  );
}
