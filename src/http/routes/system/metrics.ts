import type { App } from '../../../app.ts';

/** Prometheus text format, unauthenticated, on the API port unless METRICS_PORT gives the metrics their own listener. */
export default function metrics(app: App) {
  if (app.ctx.config.metricsPort !== undefined) return;
  app.get(
    '/metrics',
    { config: { auth: false, rateLimit: 'none', audit: false }, schema: { hide: true } },
    async (_req, reply) => {
      reply.header('Content-Type', app.ctx.metrics.contentType);
      return app.ctx.metrics.render();
    },
  );
}
