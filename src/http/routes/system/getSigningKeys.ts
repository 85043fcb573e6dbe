import { Type } from 'typebox';
import type { App } from '../../../app.ts';
import { errors } from '../../schemas.ts';

const Jwk = Type.Object({
  kty: Type.Literal('OKP'),
  crv: Type.Literal('Ed25519'),
  x: Type.String(),
  kid: Type.String(),
  use: Type.Literal('sig'),
});

export default function getSigningKeys(app: App) {
  app.get(
    '/v1/signing-keys',
    {
      config: { auth: false, audit: false },
      schema: {
        operationId: 'getSigningKeys',
        tags: ['exports'],
        summary: "The installation's public signing keys (JWKS)",
        description:
          'Public (no token): a recipient of an export package fetches it to check `manifest.jws` (`custody verify --keys <url>`). Retired keys stay listed.',
        security: [],
        response: { 200: Type.Object({ keys: Type.Array(Jwk) }), ...errors(400) },
      },
    },
    async () => app.ctx.signingKeys.jwks(),
  );
}
