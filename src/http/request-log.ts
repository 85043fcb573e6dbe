import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { redactUrl } from '../log.ts';

/** Answers slower than this are logged at info whatever their status. */
const SLOW_MS = 1000;

/**
 * One log line per request, written when it is answered (Fastify's default writes two): at `info` for errors
 * (4xx, 5xx) and slow answers, at `debug` for the rest, so the default level keeps what an operator acts on and
 * a busy server does not spend its time logging successful reads. `LOG_LEVEL=debug` logs every request.
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, req: FastifyRequest, reply: FastifyReply): void {
    const log = reply.log as Logger;
    const status = reply.statusCode;
    const ms = reply.elapsedTime;
    if (error)
      return void log.error({ err: error, method: req.method, url: redactUrl(req.url), status }, 'request errored');
    const level = status >= 400 || ms >= SLOW_MS ? 'info' : 'debug';
    if (!log.isLevelEnabled(level)) return;
    log[level](
      {
        method: req.method,
        url: redactUrl(req.url),
        route: req.routeOptions.url,
        status,
        ms: Math.round(ms * 10) / 10,
      },
      'request',
    );
  }
}

type Bindings = Record<string, unknown>;
type LogFn = (...args: unknown[]) => void;

/**
 * Fastify gives every request a child logger carrying its id; making a pino child costs more than the rest of
 * the logging of a request that logs nothing at the default level. This one makes the child on its first line.
 */
class LazyChildLogger {
  #child: Logger | undefined;
  constructor(
    private readonly parent: Logger,
    private readonly childBindings: Bindings,
  ) {}

  private get real(): Logger {
    return (this.#child ??= this.parent.child(this.childBindings));
  }
  get level(): string {
    return (this.#child ?? this.parent).level;
  }
  set level(level: string) {
    this.real.level = level;
  }
  isLevelEnabled(level: string): boolean {
    return (this.#child ?? this.parent).isLevelEnabled(level);
  }
  child(bindings: Bindings, opts?: object): Logger {
    return this.real.child(bindings, opts);
  }
  bindings(): Bindings {
    return this.real.bindings();
  }
  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}
  private write(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', args: unknown[]): void {
    const real = this.real;
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc needs the cast: pino's LogFn overloads take no `unknown[]`
    (real[level] as LogFn).apply(real, args);
  }
}

/** Fastify's `childLoggerFactory`: a route with its own options (a log level) gets a real child at once. */
export function lazyChildLogger(logger: FastifyBaseLogger, bindings: Bindings, opts: object): FastifyBaseLogger {
  if (Object.keys(opts).length > 0) return logger.child(bindings, opts);
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- tsc needs it
  return new LazyChildLogger(logger as Logger, bindings) as unknown as FastifyBaseLogger;
}
