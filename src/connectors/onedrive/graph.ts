// Wire shapes of Microsoft Graph v1.0 that the connector reads, and the rules for following its links.
import { ProviderError } from '../../provider/provider-error.ts';

export interface IdentitySet {
  user?: { id?: string; displayName?: string; email?: string };
  application?: { id?: string; displayName?: string };
}

export interface DriveItem {
  id: string;
  name?: string;
  size?: number;
  webUrl?: string;
  eTag?: string;
  cTag?: string;
  createdDateTime?: string;
  lastModifiedDateTime?: string;
  createdBy?: IdentitySet;
  lastModifiedBy?: IdentitySet;
  fileSystemInfo?: { createdDateTime?: string; lastModifiedDateTime?: string };
  parentReference?: { id?: string; driveId?: string; path?: string };
  file?: { mimeType?: string; hashes?: { quickXorHash?: string } };
  folder?: { childCount?: number };
  /** OneNote notebooks: not folders, but they have children (reference §2.4). */
  package?: { type?: string };
  root?: Record<string, unknown>;
  deleted?: { state?: string };
  remoteItem?: { id?: string; name?: string; webUrl?: string; parentReference?: { driveId?: string } };
  /** Pre-authenticated and short-lived (reference §2.7): a credential, never stored nor logged. */
  '@microsoft.graph.downloadUrl'?: unknown;
}

export interface GraphPage<T> {
  value?: T[];
  '@odata.nextLink'?: string;
  '@odata.deltaLink'?: string;
}

export const isContainer = (item: DriveItem): boolean =>
  item.folder !== undefined || item.package !== undefined || item.root !== undefined;

/** Graph addresses a user's drive by the user's object id; ids may hold characters that need encoding. */
export function driveUrl(graphUrl: string, userId: string, rest: string): string {
  return `${graphUrl}/users/${encodeURIComponent(userId)}/drive${rest}`;
}

/**
 * Graph links (nextLink, deltaLink) are followed verbatim, but only when they point back at the configured
 * Graph endpoint: a link is sent our bearer token, so a foreign one (from a tampered cursor or a broken
 * response) must never be requested.
 */
export function isGraphLink(graphUrl: string, link: unknown): link is string {
  if (typeof link !== 'string') return false;
  let url: URL;
  let base: URL;
  try {
    url = new URL(link);
    base = new URL(graphUrl);
  } catch {
    return false;
  }
  if (url.origin !== base.origin || url.username !== '' || url.password !== '') return false;
  const prefix = base.pathname.replace(/\/+$/, '');
  return url.pathname.startsWith(`${prefix}/`);
}

/** The path of a Graph link below the configured base (e.g. `/users`), or undefined for a foreign link. */
export function graphPathOf(graphUrl: string, link: string): string | undefined {
  if (!isGraphLink(graphUrl, link)) return undefined;
  const prefix = new URL(graphUrl).pathname.replace(/\/+$/, '');
  return new URL(link).pathname.slice(prefix.length);
}

export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

export function decodeCursor(text: string): unknown {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  try {
    return JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

export type NotFoundKind = 'no_user' | 'no_drive' | 'no_item';

/**
 * Classifies Graph's 404 family. A user without a provisioned OneDrive answers with several documented
 * bodies (reference §2.3): "User's mysite not found.", "Unable to retrieve user's mysite URL.",
 * "404 FILE NOT FOUND", "Tenant does not have a SPO license"; codes are compared case-insensitively.
 */
export function classifyNotFound(error: unknown): NotFoundKind | undefined {
  if (!(error instanceof ProviderError) || error.code !== 'http_error') return undefined;
  const code = String(error.providerCode ?? '').toLowerCase();
  const message = providerMessage(error).toLowerCase();
  if (/mysite|404 file not found|spo license/.test(message)) return 'no_drive';
  if (error.status !== 404) return undefined;
  if (code === 'request_resourcenotfound') return 'no_user';
  if (code === 'itemnotfound') return 'no_item';
  if (code === 'resourcenotfound' || code === 'unknownerror') return 'no_drive';
  return undefined;
}

export function providerMessage(error: ProviderError): string {
  const body = error.body as { error?: { message?: unknown } } | undefined;
  const message = body && typeof body === 'object' ? body.error?.message : undefined;
  return typeof message === 'string' ? message : '';
}

/** `{id, display_name, email}` of an identitySet's user (or application), or null. */
export function identityOf(set: IdentitySet | undefined): Record<string, string | null> | null {
  const who = set?.user ?? set?.application;
  if (!who) return null;
  return {
    id: who.id ?? null,
    display_name: who.displayName ?? null,
    email: (who as { email?: string }).email ?? null,
  };
}
