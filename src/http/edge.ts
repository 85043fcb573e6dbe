import crypto from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest, RequestPayload } from 'fastify';
import type { App } from '../app.ts';
import { codeOf, titleOf } from '../domain/errors.ts';
import { errorBody, noRoute, sendError } from './errors.ts';

/**
 * What happens below the routes: answers for requests Node refuses before Fastify sees them, the body timeout,
 * and closing connections that have shown they are hostile without resetting them under their answer.
 */

/**
 * After an answer given before its request's body was read, the rest of the body is read and thrown away up to
 * LINGER_BYTES, for at most LINGER_MS. Bodies up to that size therefore end cleanly even for a client that sends its
 * whole request before it reads the answer. Past LINGER_BYTES nothing more is read: TCP flow control holds the client
 * back, which keeps the answer and our FIN readable for a client that reads while it sends, and the socket is
 * destroyed at LINGER_MS (or as soon as the client closes).
 */
const LINGER_MS = 5000;
const LINGER_BYTES = 32 * 1024 * 1024;
/** The HTTP parser reads off the socket in C++; its byte count is looked at this often. */
const LINGER_POLL_MS = 5;

const answered = new WeakSet<Socket>();
const lingering = new WeakSet<Socket>();

/** A whole HTTP/1.1 answer in the error shape, written on a raw socket; the connection closes after it. */
export function rawErrorResponse(status: number, detail: string, docsUrl: string, extraHeaders = ''): string {
  const id = crypto.randomUUID();
  const body = JSON.stringify({
    code: codeOf(status),
    id,
    title: titleOf(status),
    detail,
    links: { about: docsUrl },
    source: null,
  });
  return (
    `HTTP/1.1 ${status} ${titleOf(status)}\r\nContent-Type: application/json; charset=utf-8\r\nX-Correlation-ID: ${id}\r\n${extraHeaders}` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/**
 * Ends our side of the connection (FIN after the answer) and drains what the client still sends (see LINGER_BYTES)
 * before destroying the socket: destroying it with unread input would send a reset, and a reset can make the
 * client lose the answer it has not read yet (the classic 413-then-EPIPE).
 */
export function closeGently(socket: Socket): void {
  if (socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  socket.end();
  const start = socket.bytesRead;
  const stop = () => {
    clearInterval(poll);
    clearTimeout(deadline);
    socket.destroy();
  };
  const poll = setInterval(() => {
    if (socket.bytesRead - start <= LINGER_BYTES) return;
    clearInterval(poll);
    socket.pause();
  }, LINGER_POLL_MS);
  const deadline = setTimeout(stop, LINGER_MS);
  poll.unref();
  deadline.unref();
  socket.once('close', stop);
  socket.once('end', stop);
}

/** Node's answer to the end of an answered request ends in destroySoon() when the answer says `Connection: close`: make that gentle. */
function closeGentlyAfterAnswer(socket: Socket): void {
  socket.destroySoon = () => closeGently(socket);
}

/** The answer Node is writing (or about to write) on this connection, if any. */
function inFlight(socket: Socket): ServerResponse | null {
  return (socket as { _httpMessage?: ServerResponse | null })._httpMessage ?? null;
}

const CLIENT_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'The request headers (or the URL) are too large.'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [400, 'The chunk extensions are too large.'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'The request took too long to arrive.'],
  HPE_INVALID_TRANSFER_ENCODING: [400, 'Only the chunked transfer coding is supported.'],
  HPE_UNEXPECTED_CONTENT_LENGTH: [400, 'Content-Length and Transfer-Encoding cannot be combined.'],
};

/**
 * Requests Node's HTTP parser refuses (garbage, bad chunks, oversized headers, timeouts) never reach Fastify.
 * They get an answer in the error shape whenever nothing has been written for them yet; an earlier, valid
 * request on the same connection (pipelining) keeps its answer, and ours follows it. Then the connection closes.
 */
export function clientErrorHandler(docsUrl: string) {
  return (err: NodeJS.ErrnoException, socket: Socket) => {
    // A socket being drained after its answer (Node's request timeout may still fire) is closed by closeGently.
    if (answered.has(socket) || lingering.has(socket)) return;
    answered.add(socket);
    if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const [status, detail] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'The request is malformed.'];
    lastAnswer(socket, rawErrorResponse(status, detail, docsUrl));
  };
}

/**
 * Writes `answer` as the connection's last one, once the answers of the valid requests before it are written
 * (pipelining: Node answers them in order, each when its route is done), then closes gently.
 */
function lastAnswer(socket: Socket, answer: string): void {
  const write = () => {
    if (!socket.writable) return void socket.destroy();
    socket.write(answer);
    closeGently(socket);
  };
  const settle = () => {
    const res = inFlight(socket);
    if (!res) return write();
    const req = (res as { req?: IncomingMessage }).req;
    // The broken request is the one in flight and nothing of its answer is written: ours is its answer.
    if (!res.headersSent && !req?.complete) return write();
    // An earlier request is being answered: let it finish (Node then moves on to the next queued answer).
    res.once('finish', () => setImmediate(settle));
    res.once('close', () => {
      if (!res.writableFinished) socket.destroy();
    });
  };
  settle();
}

/** An error-shaped answer written straight on a Node response (Fastify is not involved or has let go), then close. */
function endWithError(
  res: ServerResponse,
  status: number,
  detail: string,
  docsUrl: string,
  id: string = crypto.randomUUID(),
): void {
  const body = JSON.stringify({
    code: codeOf(status),
    id,
    title: titleOf(status),
    detail,
    links: { about: docsUrl },
    source: null,
  });
  res
    .writeHead(status, {
      'Content-Type': 'application/json; charset=utf-8',
      'X-Correlation-ID': id,
      'Content-Length': Buffer.byteLength(body),
      Connection: 'close',
    })
    .end(body);
}

/** Answers Node would otherwise write itself without the error shape (bad Expect, CONNECT). */
export function installServerAnswers(server: Server, docsUrl: string): void {
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    if (res.socket) closeGentlyAfterAnswer(res.socket);
    endWithError(res, 417, 'Only "Expect: 100-continue" is supported.', docsUrl);
  });
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    socket.on('error', () => socket.destroy());
    lastAnswer(socket, rawErrorResponse(405, 'CONNECT is not supported: this is not a proxy.', docsUrl));
  });
  // `Expect: 100-continue`: the 100 is sent only once the request has passed the checks that could refuse it
  // (token, body size), when its body is about to be read (preParsing below), never before a 401 or a 413.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => server.emit('request', req, res));
}

/**
 * Request-level edges: a missing Host (Node's own 400 has no body when it checks), the body timeout, and
 * `Connection: close` on every answer given before the request's body was read (its rest is never read).
 */
export function installRequestEdges(app: App, opts: { docsUrl: string; bodyTimeoutMs: number }): void {
  // Callback-style hooks: they run on every request, and an async hook costs a promise each.
  app.addHook('onRequest', (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
    reply.header('X-Correlation-ID', req.id);
    const raw = req.raw;
    const refusal = framingProblem(raw);
    if (refusal) {
      reply.header('Connection', 'close');
      return void reply
        .code(refusal[0])
        .type('application/json; charset=utf-8')
        // Serialized here: the route's own 400 schema (e.g. the token endpoint's) must not apply to it.
        .send(JSON.stringify(errorBody(req, refusal[0], refusal[1], opts.docsUrl)));
    }
    // Node hands the bytes after a request with `Upgrade` to an upgrade that never comes: close after the answer.
    if (raw.headers.upgrade !== undefined) reply.header('Connection', 'close');
    const unread = !raw.complete && hasBody(raw);
    // No route: answered at once, its body never read (the connection closes after the answer).
    if (unread && req.is404) return void sendError(req, reply, noRoute(req), opts.docsUrl);
    if (unread) startBodyTimer(req, reply, opts);
    done();
  });
  app.addHook(
    'preParsing',
    (
      req: FastifyRequest,
      reply: FastifyReply,
      payload: RequestPayload,
      done: (err: null, payload: RequestPayload) => void,
    ) => {
      if (req.headers.expect !== undefined && !reply.raw.headersSent && fitsBodyLimit(req)) reply.raw.writeContinue();
      done(null, payload);
    },
  );
  app.addHook(
    'onSend',
    (req: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void) => {
      const status = reply.statusCode;
      if (!req.raw.complete || status === 408 || status === 413 || status === 431) {
        reply.header('Connection', 'close');
        if (req.raw.socket) closeGentlyAfterAnswer(req.raw.socket);
      }
      done(null, payload);
    },
  );
}

/** The body must have arrived within bodyTimeoutMs of the headers; else 408 (if nothing was answered yet) and close. */
function startBodyTimer(
  req: FastifyRequest,
  reply: FastifyReply,
  opts: { docsUrl: string; bodyTimeoutMs: number },
): void {
  const raw = req.raw;
  const timer = setTimeout(() => {
    if (raw.complete || reply.sent) return;
    if (reply.raw.headersSent) return void raw.socket?.destroy();
    reply.hijack();
    closeGentlyAfterAnswer(raw.socket);
    endWithError(reply.raw, 408, 'The request body took too long to arrive.', opts.docsUrl, req.id);
  }, opts.bodyTimeoutMs);
  timer.unref();
  raw.once('end', () => clearTimeout(timer));
  reply.raw.once('close', () => clearTimeout(timer));
}

/** [status, detail] for a request whose framing or Host this server will not act on, else null. */
function framingProblem(raw: IncomingMessage): [number, string] | null {
  if (raw.httpVersion === '1.1' && !raw.headers.host) return [400, 'The Host header is required.'];
  // Node keeps the first of several Host headers; RFC 9112 §3.2 asks for a 400, as for a Host that is not one.
  if (raw.headers.host !== undefined && (!HOST.test(raw.headers.host) || hostHeaders(raw.rawHeaders) > 1))
    return [400, 'The Host header must appear once, as host[:port].'];
  const coding = raw.headers['transfer-encoding'];
  // RFC 9112 §6.1: a transfer coding the server does not understand gets 501 (Node's parser lets `gzip, chunked` through).
  if (coding !== undefined && coding.trim().toLowerCase() !== 'chunked')
    return [501, 'Only the chunked transfer coding is supported.'];
  return null;
}

const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~%!$&'()*+;=-]*)(?::\d{0,5})?$/;

function hostHeaders(rawHeaders: string[]): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2)
    if (rawHeaders[i].length === 4 && rawHeaders[i].toLowerCase() === 'host') n++;
  return n;
}

function fitsBodyLimit(req: FastifyRequest): boolean {
  const length = Number(req.headers['content-length'] ?? 0);
  return Number.isFinite(length) && length <= (req.routeOptions.bodyLimit ?? Infinity);
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
