import type { App } from '../../../app.ts';
import { errors, IdParams, NoContent } from '../../schemas.ts';

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
      const { configType, revocation } = await app.ctx.services.account.deleteWallet(
        req.caller.accountId,
        req.params.id,
      );
      req.auditInfo = { detail: { config_type: configType, provider_revocation: revocation } };
      return reply.code(204).send(null);
    },
  );
}
