import { Writable } from 'node:stream';
import Fastify from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { lazyChildLogger, RequestLog } from '../../src/http/request-log.ts';

/** An app logging at `level` into memory, with the request log and the per-request logger of src/app.ts. */
async function appLogging(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  const app = Fastify({
    loggerInstance: pino({ level }, sink),
    logController: new RequestLog(),
    childLoggerFactory: lazyChildLogger,
    genReqId: () => `req-${lines.length}`,
  });
  app.get('/ok', async () => ({ ok: true }));
  app.get('/gone', async (_req, reply) => reply.code(404).send({ code: 'not found' }));
  app.get('/warns', async (req) => {
    req.log.warn({ detail: 1 }, 'something to act on');
    return { ok: true };
  });
  await app.ready();
  return { app, lines };
}

describe('per-request log lines (README, LOG_LEVEL)', () => {
  it('at info: no line for a fast success, one info line with the request id for a 4xx', async () => {
    const { app, lines } = await appLogging('info');
    await app.inject({ method: 'GET', url: '/ok' });
    expect(lines).toEqual([]);
    const res = await app.inject({ method: 'GET', url: '/gone?code=secret' });
    expect(res.statusCode).toBe(404);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        reqId: 'req-0',
        msg: 'request',
        status: 404,
        method: 'GET',
        url: '/gone?code=[redacted]',
      }),
    ]);
  });

  it("a handler's own line carries its request's id", async () => {
    const { app, lines } = await appLogging('info');
    await app.inject({ method: 'GET', url: '/warns' });
    expect(lines).toEqual([
      expect.objectContaining({ level: 40, reqId: 'req-0', msg: 'something to act on', detail: 1 }),
    ]);
  });

  it('at debug: every answered request has its line, with its id', async () => {
    const { app, lines } = await appLogging('debug');
    await app.inject({ method: 'GET', url: '/ok' });
    await app.inject({ method: 'GET', url: '/ok' });
    expect(lines.map((l) => [l.level, l.msg, l.status, l.reqId])).toEqual([
      [20, 'request', 200, 'req-0'],
      [20, 'request', 200, 'req-1'],
    ]);
  });
});
