import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RawServerDefault } from 'fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from './context.ts';
import { installAuditHook } from './http/audit-hook.ts';
import { installAuth } from './http/auth.ts';
import { AppError } from './http/errors.ts';
import { AjvCompiler, type RouteDefinition } from '@fastify/ajv-compiler';
import { DEFAULT_BODY_LIMIT, installBodyLimits } from './http/body-limits.ts';
import { clientErrorHandler, installRequestEdges, installServerAnswers } from './http/edge.ts';
import { correlationId, installErrorHandler, sendError } from './http/errors.ts';
import { installInputChecks } from './http/input.ts';
import { lazyChildLogger, RequestLog } from './http/request-log.ts';
import { openapiInfo } from './http/openapi-info.ts';
import { describeWire } from './http/openapi-wire.ts';
import { registerRoutes } from './http/routes/index.ts';
import { ErrorBody } from './http/schemas.ts';

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}

export type App = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** Builds the HTTP app around a context. No listen() here: cli/serve.ts does that; tests use inject or listen(0). */
export async function buildApp(ctx: AppContext): Promise<App> {
  const limits = ctx.config.http;
  const app: App = Fastify({
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc needs it (App's logger type)
    loggerInstance: ctx.log as FastifyBaseLogger,
    logController: new RequestLog(),
    childLoggerFactory: lazyChildLogger,
    genReqId: (req) => correlationId(req),
    trustProxy: false,
    bodyLimit: DEFAULT_BODY_LIMIT,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // a connection with no traffic either way for this long is closed (server-sent events send heartbeats)
    connectionTimeout: 120_000,
    schemaController: { compilersFactory: { buildValidator: validatorFactory as never } },
    clientErrorHandler: clientErrorHandler(ctx.config.docsUrl),
    // URLs the router rejects before any hook runs (bad percent-encoding, over-long ids) still get the one error shape.
    frameworkErrors: (err, req, reply) => {
      reply.header('X-Correlation-ID', req.id);
      const status = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 414 : 400;
      const detail = status === 414 ? 'A path segment is too long.' : 'The URL is malformed.';
      void sendError(req, reply, new AppError(status, detail), ctx.config.docsUrl);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Node's checks: complete headers within headersTimeout, the whole request (headers and body) within
  // requestTimeout, checked every second (Node's default interval is 30 s; read at listen()). Host is checked in
  // the edge hook instead, where its 400 gets the error shape.
  Object.assign(app.server, {
    headersTimeout: limits.headersTimeoutMs,
    connectionsCheckingInterval: 1000,
    requireHostHeader: false,
  });
  app.decorate('ctx', ctx);
  installServerAnswers(app.server, ctx.config.docsUrl);
  installRequestEdges(app, { docsUrl: ctx.config.docsUrl, bodyTimeoutMs: limits.bodyTimeoutMs });
  installBodyLimits(app);
  installInputChecks(app);
  // a callback hook: an async one costs every request a promise for work that never waits
  app.addHook('onResponse', (req, reply, done) => {
    ctx.metrics.httpRequest(
      { route: req.routeOptions.url ?? 'unmatched', method: req.method, status: reply.statusCode },
      reply.elapsedTime / 1000,
    );
    done();
  });
  installErrorHandler(app, ctx.config.docsUrl);
  app.addSchema(ErrorBody);
  await app.register(swagger, {
    openapi: openapiInfo(ctx.config.publicUrl),
    // Shared schemas keep their $id as their component name (`Error`, not `def-0`) for generated clients.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    transformObject: (document) =>
      describeWire((document as { openapiObject: Parameters<typeof describeWire>[0] }).openapiObject),
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
  installAuth(app, { tokens: ctx.serviceTokens, limits: ctx.rateLimits, docsUrl: ctx.config.docsUrl });
  installAuditHook(app, ctx);
  await registerRoutes(app);
  return app;
}

const ajvBase = { removeAdditional: false, useDefaults: true } as const;
const ajvPool = AjvCompiler();

/** JSON bodies are validated as sent (`{"name":123}` is refused); params and query strings, which are text, may be coerced. */
function validatorFactory(schemas: Parameters<typeof ajvPool>[0], options: unknown) {
  const base = options as { customOptions?: object; plugins?: unknown[] };
  // allErrors: a 400 lists every problem of a body; bodies are bounded by their route's limit (body-limits.ts)
  const strict = ajvPool(schemas, {
    ...base,
    customOptions: { ...base.customOptions, ...ajvBase, coerceTypes: false, allErrors: true },
  } as never);
  const coercing = ajvPool(schemas, {
    ...base,
    customOptions: { ...base.customOptions, ...ajvBase, coerceTypes: 'array' },
  } as never);
  return (route: RouteDefinition) => (route.httpPart === 'body' ? strict : coercing)(route);
}
