import fs from 'node:fs';
import path from 'node:path';

/** What `custody login` stores: the server and the API client that signs in. */
export interface Profile {
  url: string;
  client_id: string;
  client_secret: string;
}

export const profilePath = (configDir: string) => path.join(configDir, 'profile.json');

export function readProfile(configDir: string): Profile | null {
  try {
    return JSON.parse(fs.readFileSync(profilePath(configDir), 'utf8')) as Profile;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** The file holds a client secret: it is created 0600 (directory 0700) and written by rename so it is never half there. */
export function writeProfile(configDir: string, profile: Profile): string {
  return writePrivate(configDir, profilePath(configDir), profile);
}

function writePrivate(configDir: string, file: string, value: unknown): string {
  fs.mkdirSync(configDir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
  return file;
}

/** The access token kept between invocations (never the refresh token: a rotated one must have one holder only). */
export interface KeptToken {
  url: string;
  client_id: string;
  access_token: string;
  /** Epoch milliseconds. */
  expires_at: number;
}

export const tokenPath = (configDir: string) => path.join(configDir, 'token.json');

/** The kept token for this server and client, if there is one that has not expired; anything unreadable counts as none. */
export function readToken(configDir: string, url: string, clientId: string, now = Date.now()): KeptToken | null {
  try {
    const t = JSON.parse(fs.readFileSync(tokenPath(configDir), 'utf8')) as KeptToken;
    if (t.url !== url || t.client_id !== clientId || typeof t.access_token !== 'string' || !(t.expires_at > now))
      return null;
    return t;
  } catch {
    return null;
  }
}

/** Like the profile: 0600 in a 0700 directory, written by rename. A failure to keep it is not an error of the command. */
export function writeToken(configDir: string, token: KeptToken): void {
  try {
    writePrivate(configDir, tokenPath(configDir), token);
  } catch {
    // the next invocation signs in again
  }
}

export function forgetToken(configDir: string): void {
  fs.rmSync(tokenPath(configDir), { force: true });
}
