import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import http from 'node:http';
import { CliError, EXIT } from '../errors.ts';
import { ApiError } from './client.ts';
import { say } from './context.ts';
import type { CustodyApi } from './custody-api.ts';

export const DEFAULT_CALLBACK = 'http://127.0.0.1:8765/callback';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface PairOptions {
  redirectTo: string;
  open: boolean;
  timeoutMs: number;
  /** Prints the consent URL (a result: stdout). */
  printUrl(url: string): void;
}

/**
 * Pairs a collection from the terminal: this process listens at `redirectTo` (a loopback URL on the account's
 * redirect allowlist), prints (and with `open`, opens) the consent URL, and when the browser comes back with the
 * pairing code, binds it to the collection. Resolves once paired.
 */
export async function pairCollection(
  api: CustodyApi,
  collection: { onna_id: string; type: string },
  opts: PairOptions,
): Promise<void> {
  const target = loopbackUrl(opts.redirectTo);
  const state = crypto.randomBytes(16).toString('hex');
  const arrived = listen(target, state, (code) => api.pairCredentials(collection.onna_id, code));
  try {
    await arrived.ready;
    let url: string;
    try {
      url = (await api.authorizationUrl(collection.type, opts.redirectTo, state)).authorization_url;
    } catch (err) {
      if (err instanceof ApiError && err.status === 400 && /allowlist/.test(err.message)) {
        throw new CliError(
          `${opts.redirectTo} is not on the account's redirect allowlist: add it with \`custody admin allow-redirect --account <name> ${opts.redirectTo}\`, or pass --redirect-to with one that is`,
          EXIT.usage,
        );
      }
      throw err;
    }
    opts.printUrl(url);
    if (opts.open) openBrowser(url);
    say(`Waiting for the consent to come back to ${opts.redirectTo} (${Math.round(opts.timeoutMs / 1000)} s)…`);
    await withTimeout(
      arrived.paired,
      opts.timeoutMs,
      `no consent came back to ${opts.redirectTo} within ${Math.round(opts.timeoutMs / 1000)} s; run the command again`,
    );
  } finally {
    arrived.close();
  }
}

function loopbackUrl(value: string): URL {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new CliError(`--redirect-to is not a URL: ${value}`, EXIT.usage);
  }
  if (u.protocol !== 'http:' || !LOOPBACK.has(u.hostname) || !u.port) {
    throw new CliError(
      `--redirect-to must be an http loopback URL with a port (e.g. ${DEFAULT_CALLBACK}): this process receives the browser there`,
      EXIT.usage,
    );
  }
  return u;
}

/** The loopback listener: one browser request with our state and a code (or the provider's error) settles it. */
function listen(target: URL, state: string, pair: (code: string) => Promise<void>) {
  let settle!: { resolve: () => void; reject: (err: Error) => void };
  const paired = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  paired.catch(() => undefined);
  let busy = false;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', target);
    const page = (status: number, text: string) => {
      res
        .writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
        .end(`${text}\n`);
    };
    if (url.pathname !== target.pathname || url.searchParams.get('state') !== state || busy)
      return page(404, 'Not the pairing this terminal is waiting for.');
    busy = true;
    const error = url.searchParams.get('error');
    const code = url.searchParams.get('code');
    if (error || !code) {
      const why = `the provider answered ${error ?? 'without a code'}${url.searchParams.get('error_description') ? `: ${url.searchParams.get('error_description')}` : ''}`;
      page(400, `Pairing failed: ${why}. You can close this tab.`);
      return settle.reject(new CliError(`pairing failed: ${why}`));
    }
    pair(code).then(
      () => {
        page(200, 'Paired. You can close this tab and return to the terminal.');
        settle.resolve();
      },
      (err: Error) => {
        page(502, `Pairing failed: ${err.message}. You can close this tab.`);
        settle.reject(err);
      },
    );
  });
  const ready = new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new CliError(
          err.code === 'EADDRINUSE'
            ? `${target.host} is in use: pass --redirect-to with another port on the allowlist`
            : `cannot listen at ${target.host}: ${err.message}`,
        ),
      ),
    );
    server.listen(Number(target.port), target.hostname.replace(/^\[|\]$/g, ''), () => resolve());
  });
  return { ready, paired, close: () => server.close() };
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new CliError(message)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The platform's opener; if there is none, the printed URL is there to open by hand. */
function openBrowser(url: string): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(cmd, args, { detached: true, stdio: 'ignore' });
    child.on('error', () => say(`could not start ${cmd}: open the URL above in a browser`));
    child.unref();
  } catch {
    say(`could not start ${cmd}: open the URL above in a browser`);
  }
}
