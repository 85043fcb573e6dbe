import fs from 'node:fs';
import path from 'node:path';

/** What `custody login` stores: the server and the API client that signs in (a fresh token per command). */
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
  fs.mkdirSync(configDir, { recursive: true, mode: 0o700 });
  const file = profilePath(configDir);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(profile, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
  return file;
}
