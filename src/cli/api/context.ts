import { Command, InvalidArgumentError } from 'commander';
import { loadCliConfig } from '../../config.ts';
import { CliError, EXIT } from '../errors.ts';
import { connect } from './client.ts';
import { CustodyApi } from './custody-api.ts';
import { readProfile, readToken, writeToken } from './profile.ts';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

export interface Globals {
  url?: string;
  json?: boolean;
  debug?: boolean;
}

export const globals = (cmd: Command) => cmd.optsWithGlobals<Globals>();

/**
 * The API of the profile's server. One token serves the whole invocation, and it is kept in the profile
 * directory (token.json, 0600) for the next invocations while it is valid; it is never printed.
 */
export function apiFor(cmd: Command): CustodyApi {
  const cli = loadCliConfig();
  const profile = readProfile(cli.configDir);
  const url = normalizeUrl(globals(cmd).url ?? cli.url ?? profile?.url ?? DEFAULT_URL);
  if (!profile) return new CustodyApi(connect(url, null));
  const kept = readToken(cli.configDir, url, profile.client_id);
  return new CustodyApi(
    connect(
      url,
      { clientId: profile.client_id, clientSecret: profile.client_secret },
      {
        token: kept ? { access_token: kept.access_token, expires_at: kept.expires_at } : undefined,
        onTokens: (pair, expiresAt) =>
          writeToken(cli.configDir, {
            url,
            client_id: profile.client_id,
            access_token: pair.access_token,
            expires_at: expiresAt,
          }),
      },
    ),
  );
}

export function normalizeUrl(value: string): string {
  try {
    const u = new URL(value);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
    return u.origin + u.pathname.replace(/\/+$/, '');
  } catch {
    throw new CliError(`not an http(s) URL: ${value}`, EXIT.usage);
  }
}

export const positiveInt = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer.');
  return n;
};

/** A line of progress or a diagnostic: stderr, always ending with a newline (results go to stdout). */
export function say(text: string): void {
  process.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** A result line on stdout, ending with a newline. */
export function result(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}
