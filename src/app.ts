import formbody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RawServerDefault } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from './context.ts';
import { installAuditHook } from './http/audit-hook.ts';
import { installAuth } from './http/auth.ts';
import { AppError } from './domain/errors.ts';
import { clientErrorHandler, correlationId, installErrorHandler, sendError } from './http/errors.ts';
import { openapiInfo } from './http/openapi-info.ts';
import { registerRoutes } from './http/routes/index.ts';
import { ErrorBody } from './http/schemas.ts';

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}

export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

/** Builds the HTTP app around a context. No listen() here: cli/serve.ts does that; tests use inject or listen(0). */
export async function buildApp(ctx: AppContext): Promise<App> {
  const app: App = Fastify({
    loggerInstance: ctx.log as FastifyBaseLogger,
    genReqId: (req) => correlationId(req),
    trustProxy: false,
    bodyLimit: 1024 * 1024,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true } },
    clientErrorHandler: clientErrorHandler(ctx.config.docsUrl),
    // URLs the router rejects before any hook runs (bad percent-encoding, over-long ids) still get the one error shape.
    frameworkErrors: (err, req, reply) => {
      reply.header('X-Correlation-ID', req.id);
      const status = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
      const detail = status === 414 ? 'A path segment is too long.' : 'The URL is malformed.';
      return sendError(req, reply, new AppError(status, detail), ctx.config.docsUrl);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('ctx', ctx);
  app.addHook('onRequest', async (req, reply) => {
    reply.header('X-Correlation-ID', req.id);
  });
  installErrorHandler(app, ctx.config.docsUrl);
  app.addSchema(ErrorBody);
  await app.register(formbody);
  await app.register(swagger, { openapi: openapiInfo(ctx.config.publicUrl) });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
  installAuth(app, { tokens: ctx.serviceTokens, limits: ctx.rateLimits, docsUrl: ctx.config.docsUrl });
  installAuditHook(app, ctx);
  await registerRoutes(app);
  return app;
}
