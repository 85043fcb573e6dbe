import { makeDownloadUrl } from '../download.ts';
import type { SandboxState } from '../state.ts';
import type { MsDrive, MsItem, MsUser } from '../types.ts';
import { OPTIONAL_ITEM_PROPERTIES } from '../variance.ts';

export interface DriveContext {
  state: SandboxState;
  user: MsUser;
  drive: MsDrive;
  appId: string;
}

const OFFICE = /\.(docx|xlsx|pptx)$/i;
const DEFAULT_USER_PROPERTIES = [
  'businessPhones',
  'displayName',
  'givenName',
  'jobTitle',
  'mail',
  'mobilePhone',
  'officeLocation',
  'preferredLanguage',
  'surname',
  'userPrincipalName',
  'id',
];
export const USER_PROPERTIES = new Set([
  ...DEFAULT_USER_PROPERTIES,
  'accountEnabled',
  'userType',
  'department',
  'mySite',
]);
/** Properties Graph only returns on a single-user GET, never on the collection (reference §2.2). */
export const SINGLE_USER_ONLY = new Set(['mySite']);

export function userJson(user: MsUser, select: string[] | undefined): Record<string, unknown> {
  const all: Record<string, unknown> = {
    businessPhones: [],
    displayName: user.displayName,
    givenName: user.givenName,
    jobTitle: user.jobTitle,
    mail: user.mail,
    mobilePhone: null,
    officeLocation: user.officeLocation,
    preferredLanguage: user.userType === 'Guest' ? null : 'en-US',
    surname: user.surname,
    userPrincipalName: user.userPrincipalName,
    id: user.id,
    accountEnabled: user.accountEnabled,
    userType: user.userType,
    department: user.department,
    mySite: user.drive ? user.drive.webUrl.replace(/\/Documents$/, '/') : null,
  };
  const keys = select ?? DEFAULT_USER_PROPERTIES;
  return Object.fromEntries(keys.map((k) => [k, all[k]]));
}

export function driveJson(ctx: DriveContext): Record<string, unknown> {
  const { state, user, drive } = ctx;
  const used = state.model.folderSize(drive, drive.rootId);
  const total = 1_099_511_627_776;
  const owner = { user: { email: user.mail ?? user.userPrincipalName, id: user.id, displayName: user.displayName } };
  const lastModified = [...drive.items.values()].reduce(
    (max, i) => (i.changedAt > max ? i.changedAt : max),
    drive.createdDateTime,
  );
  return {
    createdDateTime: drive.createdDateTime,
    description: '',
    id: drive.id,
    lastModifiedDateTime: lastModified,
    name: 'OneDrive',
    webUrl: drive.webUrl,
    driveType: 'business',
    createdBy: { user: { displayName: 'System Account' } },
    lastModifiedBy: owner,
    owner,
    quota: { deleted: 0, remaining: total - used, state: 'normal', total, used },
  };
}

function itemWebUrl(ctx: DriveContext, item: MsItem): string {
  const { drive, state } = ctx;
  if (item.parentId === null) return drive.webUrl;
  if (item.kind === 'file' && OFFICE.test(item.name)) {
    const site = drive.webUrl.replace(/\/Documents$/, '');
    return `${site}/_layouts/15/Doc.aspx?sourcedoc=%7B${item.uniqueId}%7D&file=${encodeURIComponent(item.name)}&action=default&mobileredirect=true`;
  }
  return `${drive.webUrl}/${state.model.pathNames(drive, item).map(encodeURIComponent).join('/')}`;
}

function parentReference(ctx: DriveContext, item: MsItem, withPath: boolean): Record<string, unknown> {
  const ref: Record<string, unknown> = { driveType: 'business', driveId: ctx.drive.id };
  if (item.parentId === null) return ref;
  ref.id = item.parentId;
  if (withPath) {
    const parent = ctx.drive.items.get(item.parentId)!;
    const names = ctx.state.model.pathNames(ctx.drive, parent);
    ref.name = parent.parentId === null ? 'Documents' : parent.name;
    ref.path = `/drives/${ctx.drive.id}/root:${names.map((n) => `/${encodeURIComponent(n)}`).join('')}`;
  }
  return ref;
}

/**
 * A live driveItem. `mode: 'delta'` drops what ODB's delta omits (reference §2.6): cTag and
 * parentReference.path/name; createdBy and lastModifiedBy as `deltaAuthors` says (Correction G2).
 */
export function itemJson(ctx: DriveContext, item: MsItem, mode: 'full' | 'delta'): Record<string, unknown> {
  const json = plainItemJson(ctx, item, mode);
  return ctx.state.variance ? ctx.state.variance.reshape(json, OPTIONAL_ITEM_PROPERTIES, item.id) : json;
}

/** An item as a listing (delta, children) gives it: under the variance profile, its download URL varies. */
export function listedItemJson(ctx: DriveContext, item: MsItem, mode: 'full' | 'delta'): Record<string, unknown> {
  const json = itemJson(ctx, item, mode);
  const url = item.kind === 'file' ? ctx.state.variance?.listedDownloadUrl(item.id) : undefined;
  if (url === 'absent') delete json['@microsoft.graph.downloadUrl'];
  if (url === 'expired')
    json['@microsoft.graph.downloadUrl'] = makeDownloadUrl(ctx.state, ctx.drive, item, ctx.appId, 0);
  return json;
}

function plainItemJson(ctx: DriveContext, item: MsItem, mode: 'full' | 'delta'): Record<string, unknown> {
  const full = mode === 'full';
  const out: Record<string, unknown> = {};
  if (item.kind === 'file')
    out['@microsoft.graph.downloadUrl'] = makeDownloadUrl(ctx.state, ctx.drive, item, ctx.appId);
  if (full || deltaCarries(ctx.state, item, 'createdBy')) out.createdBy = item.createdBy;
  out.createdDateTime = item.createdDateTime;
  out.eTag = `"{${item.uniqueId}},${item.eTagVersion}"`;
  out.id = item.id;
  if (full || deltaCarries(ctx.state, item, 'lastModifiedBy')) out.lastModifiedBy = item.lastModifiedBy;
  out.lastModifiedDateTime = item.lastModifiedDateTime;
  out.name = item.name;
  out.parentReference = parentReference(ctx, item, full);
  out.webUrl = itemWebUrl(ctx, item);
  if (full && item.kind === 'file') out.cTag = `"c:{${item.uniqueId}},${item.cTagVersion}"`;
  out.fileSystemInfo = { createdDateTime: item.createdDateTime, lastModifiedDateTime: item.lastModifiedDateTime };
  if (item.kind === 'file') {
    out.file = { mimeType: item.mimeType, hashes: { quickXorHash: item.quickXorHash } };
    if (ctx.state.variance?.isFailing(item)) out.malware = { description: 'Sandbox.Test.Malware' };
    out.size = item.size;
  } else {
    out.folder = { childCount: ctx.state.model.liveChildren(ctx.drive, item.id).length };
    out.size = ctx.state.model.folderSize(ctx.drive, item.id);
    if (item.parentId === null) out.root = {};
  }
  return out;
}

/** Whether a delta entry carries `field`: fixed per item and field for a seed, so a test can count on it. */
export function deltaCarries(
  state: Pick<SandboxState, 'deltaAuthors' | 'seed'>,
  item: Pick<MsItem, 'id'>,
  field: 'createdBy' | 'lastModifiedBy',
): boolean {
  if (state.deltaAuthors !== 'vary') return state.deltaAuthors === 'include';
  let h = (state.seed ^ 0x5bd1e995) >>> 0;
  for (const c of `${field}:${item.id}`) h = Math.imul(h ^ c.charCodeAt(0), 2654435761) >>> 0;
  return ((h >>> 13) & 1) === 1;
}

/** A deleted item as ODB delta reports it: no name, no cTag, a `deleted` facet. */
export function deletedItemJson(ctx: DriveContext, item: MsItem): Record<string, unknown> {
  return {
    id: item.id,
    lastModifiedDateTime: item.changedAt,
    parentReference: { driveType: 'business', driveId: ctx.drive.id, id: item.parentId },
    size: item.kind === 'file' ? item.size : 0,
    deleted: { state: 'deleted' },
  };
}

/** $select on driveItems: only the named properties; the download URL only when named explicitly. */
export function projectItem(json: Record<string, unknown>, select: string[] | undefined): Record<string, unknown> {
  if (!select) return json;
  const keep = new Set(select);
  if (keep.has('content.downloadUrl')) keep.add('@microsoft.graph.downloadUrl');
  if (json.deleted) keep.add('deleted').add('id');
  return Object.fromEntries(Object.entries(json).filter(([k]) => keep.has(k)));
}

export function parseSelect(raw: unknown): string[] | undefined {
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
