import type { App } from '../../../app.ts';
import { Type } from 'typebox';
import { AppError } from '../../errors.ts';
import { errors } from '../../schemas.ts';

export default function health(app: App) {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get(
    '/readyz',
    { schema: { hide: true, response: { 200: Type.Object({ status: Type.String() }), ...errors(503) } } },
    async () => {
      try {
        await app.ctx.reads.ping();
      } catch (err) {
        app.log.error({ err }, 'database not reachable');
        throw new AppError(503, 'The database is not reachable.');
      }
      return { status: 'ready' };
    },
  );
  app.get('/v1/openapi.json', { config: { auth: false }, schema: { hide: true } }, async () => app.swagger());
}
