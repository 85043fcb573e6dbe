import {
  createCustodyClient,
  CustodyApiError,
  type CustodyClient,
  type CustodyClientOptions,
} from '../../../client/src/index.ts';
import { CliError } from '../errors.ts';

export { CustodyApiError };

/**
 * The typed client (client/) behind the commands: it signs in with the client credentials, rotates tokens and
 * retries 429s. Every failure becomes a one-line CliError carrying the service's `detail`.
 */
export function connect(
  baseUrl: string,
  credentials: { clientId: string; clientSecret: string } | null,
  tokens: Pick<CustodyClientOptions, 'token' | 'onTokens'> = {},
): Api {
  const client = credentials ? createCustodyClient({ baseUrl, ...credentials, ...tokens }) : null;
  return {
    baseUrl,
    async run(what, fn) {
      if (!client)
        throw new CliError(
          'not logged in: run `custody login --url <url> --client-id <id> --client-secret <secret>` first',
        );
      try {
        return await fn(client);
      } catch (err) {
        throw cliErrorOf(err, what, baseUrl);
      }
    },
  };
}

export interface Api {
  baseUrl: string;
  /** Runs calls of the typed client; `what` names the step in the error message (`GET /v1/workspaces`). */
  run<T>(what: string, fn: (client: CustodyClient) => Promise<T>): Promise<T>;
}

function cliErrorOf(err: unknown, what: string, baseUrl: string): Error {
  if (err instanceof CliError || (err as Error).name === 'AbortError') return err as Error;
  if (err instanceof CustodyApiError) {
    const pointer =
      typeof err.body === 'object' && err.body && 'source' in err.body && err.body.source
        ? ` (${err.body.source.pointer})`
        : '';
    const code = err.code && !('source' in ((err.body as object) ?? {})) ? `${err.code}: ` : '';
    const hint = err.status === 401 ? ' (run `custody login` again?)' : '';
    return new ApiError(`${what} failed: ${err.status} ${code}${err.detail}${pointer}${hint}`, err.status);
  }
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (err instanceof TypeError && cause) {
    const why =
      cause.code === 'ECONNREFUSED'
        ? 'connection refused (is `custody serve` running there?)'
        : (cause.code ?? cause.message);
    return new CliError(`cannot reach ${baseUrl}: ${why}`);
  }
  return err as Error;
}

export class ApiError extends CliError {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}
