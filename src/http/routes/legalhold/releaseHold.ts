import type { App } from '../../../app.ts';
import { notFound } from '../../../domain/errors.ts';
import { releaseHold as release } from '../../../store/holds.ts';
import { errors, IdParams, NoContent } from '../../schemas.ts';

export default function releaseHold(app: App) {
  app.delete(
    '/v1/legalhold/holds/:id',
    {
      config: { rateLimit: 'none', audit: 'legalhold.release' },
      schema: {
        tags: ['legalhold'],
        summary: 'Release a legal hold',
        description: 'Deletion of what it covered is allowed again (unless another hold covers it). Releasing again answers 404.',
        params: IdParams,
        response: { 204: NoContent, ...errors(401, 404) },
      },
    },
    async (req, reply) => {
      if (!(await release(app.ctx.db, req.caller.accountId, req.params.id, req.caller.clientId))) throw notFound('Legal hold');
      return reply.code(204).send(null);
    },
  );
}
