import type { FaultDice } from '../fault-rates.ts';

export interface MicrosoftSandboxOptions {
  /** The multi-tenant app the sandbox knows. Defaults: 'sandbox-ms-client' / 'sandbox-ms-secret'. */
  clientId?: string;
  clientSecret?: string;
  /** When set, authorize/adminconsent only accept these exact redirect URIs (AADSTS50011 otherwise). */
  redirectUris?: string[];
  /** Port of the login + Graph listener (default 0 = ephemeral). The download host always gets its own port. */
  port?: number;
  downloadPort?: number;
  seed?: number;
  /** Default 6. */
  users?: number;
  /** How many users (the last ones) have no provisioned OneDrive. Default 2 when users >= 4, 1 when users >= 2. */
  usersWithoutDrive?: number;
  folderDepth?: number;
  foldersPerLevel?: number;
  filesPerFolder?: number;
  /** Average file size in bytes; each file gets a seeded size between 1 and 2 * fileSize. */
  fileSize?: number;
  /** The file name extensions files get (seeded pick). Default: docx, xlsx, pdf, txt, csv, png, pptx, json. */
  extensions?: readonly string[];
  /** App (and delegated) access token lifetime. Default: random 3600-5399 s per token, like Entra. */
  tokenLifetimeSeconds?: number;
  /** Lifetime of pre-authenticated download URLs. Default 600 s. */
  downloadUrlLifetimeSeconds?: number;
  /** Default delta page size when the request has no $top. Default 20 (small, to exercise paging). */
  deltaPageSize?: number;
  /**
   * Whether delta entries carry `createdBy`/`lastModifiedBy`. The delta reference no longer names them among what
   * OneDrive for Business omits (Correction G2) and older revisions did: a client may rely on neither. `vary`
   * (default): each field included or left out per item, seeded.
   */
  deltaAuthors?: 'include' | 'omit' | 'vary';
  now?: () => Date;
  /** SharePoint resource units per app per tenant per sliding minute. Default 100,000. */
  resourceUnitsPerMinute?: number;
  /**
   * The variance profile (off by default): other 404 codes and bodies for missing items, optional properties missing
   * and unknown ones added, empty pages that still carry a nextLink (users and delta), a file deleted between
   * listing and download, and a file whose download fails every time (malware).
   */
  variance?: import('./variance.ts').MsVarianceOptions;
}

export interface MsIdentity {
  user: { id: string; displayName: string; email: string };
}

export interface MsItem {
  id: string;
  name: string;
  /** null only for the drive root. */
  parentId: string | null;
  kind: 'folder' | 'file';
  /** File size in bytes (folders: 0 here; Graph reports the aggregate of live descendants). */
  size: number;
  mimeType?: string;
  /** Base64 QuickXorHash of the content the sandbox serves (unchanged by the corruptDownloads fault). */
  quickXorHash?: string;
  createdDateTime: string;
  lastModifiedDateTime: string;
  createdBy: MsIdentity;
  lastModifiedBy: MsIdentity;
  deleted: boolean;
  /** GUID behind eTag/cTag and the download URL's UniqueId. */
  uniqueId: string;
  eTagVersion: number;
  cTagVersion: number;
  /** Drive change sequence number of the last change (drives delta). */
  changeSeq: number;
  changedAt: string;
}

export interface MsDrive {
  id: string;
  ownerId: string;
  webUrl: string;
  createdDateTime: string;
  rootId: string;
  /** All items ever seen, including deleted ones (kept as tombstones for delta). */
  items: Map<string, MsItem>;
  changeSeq: number;
}

export type MissingDriveKind = 'mysiteNotFound' | 'fileNotFound';

export interface MsUser {
  id: string;
  userPrincipalName: string;
  displayName: string;
  givenName: string;
  surname: string;
  mail: string | null;
  jobTitle: string | null;
  department: string | null;
  officeLocation: string | null;
  accountEnabled: boolean;
  userType: 'Member' | 'Guest';
  drive: MsDrive | null;
  /** Which documented 404 variant GET /users/{id}/drive answers when drive is null. */
  missingDrive?: MissingDriveKind;
}

export interface MsTenant {
  id: string;
  /** Initial verified domain, e.g. contoso-sandbox.onmicrosoft.com (accepted as {tenant} on the login host). */
  domain: string;
  displayName: string;
  /** users[0] is the tenant admin who "signs in" on /authorize and /adminconsent. */
  users: MsUser[];
}

export interface MsFaults {
  /** The next n Graph requests answer 429 TooManyRequests with Retry-After. */
  throttle429: number;
  /** The next n Graph requests answer 503 with Retry-After and an empty body (as Corso observed). */
  throttle503: number;
  /** Retry-After value used by the two faults above; fractional like Graph's samples. */
  retryAfterSeconds: number;
  /** The next n Graph requests answer 500 generalException. */
  serverErrors: number;
  /** The next n download-host GETs send the headers and half the body, then destroy the socket. */
  resetConnections: number;
  /** The next n downloads serve altered bytes (same length) while metadata keeps the original hash. */
  corruptDownloads: number;
  /** While true the download host answers 401 to every URL (as if expired). */
  expireDownloadUrls: boolean;
  /** One-shot: the next delta request with a round-start (deltaLink) token answers 410 resyncRequired. */
  deltaTokenExpired: boolean;
  /** While true every delta page after the first repeats the previous page's last item. */
  duplicateDeltaItems: boolean;
  /** While true each delta round starts with an empty page that still carries a nextLink. */
  emptyDeltaPages: boolean;
  /** While true the download host ignores Range and answers 200 with the whole body. */
  ignoreRange: boolean;
  /** Faults at rates (sandbox/fault-rates.ts) on Graph and download-host requests; null: none. */
  dice: FaultDice | null;
}

export interface MsRequestRecord {
  method: string;
  /** Path without the query string (download URLs carry their tempauth in the query). */
  path: string;
  host: 'login' | 'graph' | 'download';
  /** Only the scheme of the Authorization header (e.g. 'Bearer', 'Basic'), never the credential. */
  auth?: string;
  status?: number;
  /** When it arrived (epoch milliseconds, the real clock): rates measured at the simulator. */
  at: number;
}
