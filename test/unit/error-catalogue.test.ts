import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { conflict, DomainError, invalidInput, notFound } from '../../src/domain/errors.ts';
import { installErrorHandler } from '../../src/http/errors.ts';

const DOCS = 'https://docs.example/errors';

async function appThrowing() {
  const app = Fastify();
  installErrorHandler(app, DOCS);
  app.get('/open', () => {
    throw invalidInput('cursor is not a cursor this API returned.', 'cursor');
  });
  app.post('/open', () => {
    throw notFound('Collection c1', 'collection_ids/3');
  });
  app.post(
    '/declared',
    { schema: { querystring: { type: 'object', properties: { dry_run: { type: 'string' } } } } },
    () => {
      throw invalidInput('dry_run is not a boolean.', 'dry_run');
    },
  );
  app.delete('/hold', () => {
    throw conflict('legal_hold', 'legal hold "Case 7" covers collection c1.');
  });
  app.get('/range', () => {
    throw new DomainError('range_not_satisfiable', 'The range is outside the content (10 bytes).', undefined, {
      'Content-Range': 'bytes */10',
    });
  });
  app.get('/pg-full', () => {
    throw Object.assign(new Error('sorry, too many clients already'), { code: '53300' });
  });
  app.get('/pool-timeout', () => {
    throw new Error('timeout exceeded when trying to connect');
  });
  app.get('/bug', () => {
    throw new Error('a bug');
  });
  await app.ready();
  return app;
}

describe('the error catalogue over HTTP', async () => {
  const app = await appThrowing();
  afterAll(() => app.close());

  it('answers a domain refusal with its cause’s status, code and title, the field as a pointer into the query of a GET', async () => {
    const res = await app.inject({ method: 'GET', url: '/open' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: '00400_bad_request',
      title: 'Bad Request',
      detail: 'cursor is not a cursor this API returned.',
      links: { about: DOCS },
      source: { pointer: '/querystring/cursor' },
    });
  });

  it('points into the body of a POST, and into the part whose schema declares the field', async () => {
    const body = await app.inject({ method: 'POST', url: '/open', payload: {} });
    expect(body.statusCode).toBe(404);
    expect(body.json()).toMatchObject({
      code: '00404_not_found',
      title: 'Not Found',
      detail: 'Collection c1 not found.',
      source: { pointer: '/body/collection_ids/3' },
    });
    const declared = await app.inject({ method: 'POST', url: '/declared', payload: {} });
    expect(declared.json()).toMatchObject({ source: { pointer: '/querystring/dry_run' } });
  });

  it('gives a conflict its own code and no pointer, and sends the headers a cause carries', async () => {
    const hold = await app.inject({ method: 'DELETE', url: '/hold' });
    expect(hold.statusCode).toBe(409);
    expect(hold.json()).toMatchObject({ code: '00409_legal_hold', title: 'Conflict', source: null });
    const range = await app.inject({ method: 'GET', url: '/range' });
    expect(range.statusCode).toBe(416);
    expect(range.headers['content-range']).toBe('bytes */10');
    expect(range.json()).toMatchObject({ code: '00416_range_not_satisfiable', title: 'Range Not Satisfiable' });
  });

  it('answers a database that takes no more connections with 503 and Retry-After, a bug with 500', async () => {
    for (const url of ['/pg-full', '/pool-timeout']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.json()).toMatchObject({ code: '00503_service_unavailable', title: 'Service Unavailable' });
      expect(res.body).not.toContain('too many clients');
    }
    expect((await app.inject({ method: 'GET', url: '/bug' })).statusCode).toBe(500);
  });
});
