import type { App } from '../../../app.ts';
import type { Connector, Grant } from '../../../connectors/types.ts';
import { conflict, notFound } from '../../../domain/errors.ts';
import { errors, IdParams, NoContent } from '../../schemas.ts';

/**
 * Revocation at the provider, for a connector whose OAuth offers it. Neither built-in connector does today: the
 * Zoom reference (shared/reference/zoom-api.md) documents no revoke endpoint and the simulator has none, and an
 * `edrive` grant is a tenant admin's consent, which only the tenant removes. A connector adds `revoke` to its
 * `oauth` to take part.
 */
type Revocable = { revoke?: (grant: Grant) => Promise<void> };

async function revokeAtProvider(
  app: App,
  connector: Connector | undefined,
  sealedGrant: string | null,
): Promise<'revoked' | 'not_offered' | 'failed' | 'not_paired'> {
  if (!sealedGrant) return 'not_paired';
  const revoke = (connector?.oauth as Revocable | undefined)?.revoke;
  if (!revoke) return 'not_offered';
  try {
    await revoke(app.ctx.sealer.open<Grant>(sealedGrant));
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
          '(best effort: a failed revocation does not keep the wallet; the audit entry records `provider_revocation`). Zoom and Microsoft grants are not revoked by Custody: remove the app at the ' +
          'provider (Zoom Marketplace, Microsoft Entra enterprise applications) to withdraw consent there.',
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
