import { quickXorHashBase64 } from '../../src/connectors/onedrive/quickxorhash.ts';
import type { SeededRandom } from './rng.ts';
import type { MsDrive, MsIdentity, MsItem, MsTenant, MsUser } from './types.ts';

const MIME_TYPES: Record<string, string> = {
  txt: 'text/plain',
  csv: 'text/csv',
  json: 'application/json',
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

export function mimeTypeFor(name: string): string {
  const ext = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '';
  return MIME_TYPES[ext] ?? 'application/octet-stream';
}

export function isoSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

export function identityOf(user: MsUser): MsIdentity {
  return { user: { id: user.id, displayName: user.displayName, email: user.mail ?? user.userPrincipalName } };
}

/** Live state of the tenant plus the bytes behind every file; shared by Graph, the download host and mutate. */
export class TenantModel {
  readonly contents = new Map<string, Buffer>();

  constructor(
    readonly tenant: MsTenant,
    readonly rng: SeededRandom,
  ) {}

  user(idOrUpn: string): MsUser | undefined {
    const key = idOrUpn.toLowerCase();
    const hit = this.lookup().byKey.get(key);
    if (hit && (hit.id === key || hit.userPrincipalName.toLowerCase() === key)) return hit;
    return this.stale(this.tenant.users.find((u) => u.id === key || u.userPrincipalName.toLowerCase() === key));
  }

  driveById(driveId: string): { user: MsUser; drive: MsDrive } | undefined {
    const hit = this.lookup().byDrive.get(driveId);
    if (hit?.drive?.id === driveId) return { user: hit, drive: hit.drive };
    const user = this.stale(this.tenant.users.find((u) => u.drive?.id === driveId));
    return user?.drive ? { user, drive: user.drive } : undefined;
  }

  /** Found by a scan, not by the index: the index missed a change, so it is built again at the next lookup. */
  private stale<T>(found: T | undefined): T | undefined {
    if (found !== undefined) this.index = undefined;
    return found;
  }

  /**
   * Users by id, principal name and drive, so that a tenant of 10,000 users answers each request without a scan
   * (benches of many custodians measured the simulator's scans). A cache: rebuilt when users are added or a scan
   * finds what it missed, and checked on every hit, so a change it did not see never answers wrongly.
   */
  private index?: { size: number; byKey: Map<string, MsUser>; byDrive: Map<string, MsUser> };
  private lookup(): NonNullable<TenantModel['index']> {
    const users = this.tenant.users;
    if (this.index?.size !== users.length) {
      const byKey = new Map<string, MsUser>();
      const byDrive = new Map<string, MsUser>();
      for (const u of users) {
        byKey.set(u.id, u);
        byKey.set(u.userPrincipalName.toLowerCase(), u);
        if (u.drive) byDrive.set(u.drive.id, u);
      }
      this.index = { size: users.length, byKey, byDrive };
    }
    return this.index;
  }

  liveItem(drive: MsDrive, itemId: string): MsItem | undefined {
    const item = drive.items.get(itemId);
    return item && !item.deleted ? item : undefined;
  }

  liveChildren(drive: MsDrive, parentId: string): MsItem[] {
    const out: MsItem[] = [];
    for (const item of drive.items.values()) if (!item.deleted && item.parentId === parentId) out.push(item);
    return out.sort((a, b) => a.name.localeCompare(b.name, 'en', { sensitivity: 'base' }));
  }

  /** Live items in tree preorder: every parent before its children. */
  preorder(drive: MsDrive): MsItem[] {
    const out: MsItem[] = [];
    const visit = (item: MsItem) => {
      out.push(item);
      if (item.kind === 'folder') for (const child of this.liveChildren(drive, item.id)) visit(child);
    };
    visit(drive.items.get(drive.rootId)!);
    return out;
  }

  folderSize(drive: MsDrive, folderId: string): number {
    let total = 0;
    for (const child of this.liveChildren(drive, folderId)) {
      total += child.kind === 'file' ? child.size : this.folderSize(drive, child.id);
    }
    return total;
  }

  /** Names from the root's child down to the item (empty for the root). */
  pathNames(drive: MsDrive, item: MsItem): string[] {
    const names: string[] = [];
    let current: MsItem | undefined = item;
    while (current && current.parentId !== null) {
      names.unshift(current.name);
      current = drive.items.get(current.parentId);
    }
    return names;
  }

  isAncestor(drive: MsDrive, ancestorId: string, itemId: string): boolean {
    let current = drive.items.get(itemId);
    while (current) {
      if (current.id === ancestorId) return true;
      current = current.parentId === null ? undefined : drive.items.get(current.parentId);
    }
    return false;
  }

  newItem(
    drive: MsDrive,
    fields: {
      name: string;
      parentId: string | null;
      kind: 'folder' | 'file';
      by: MsIdentity;
      at: string;
      content?: Buffer;
    },
  ): MsItem {
    const item: MsItem = {
      id: this.rng.itemId(),
      name: fields.name,
      parentId: fields.parentId,
      kind: fields.kind,
      size: 0,
      createdDateTime: fields.at,
      lastModifiedDateTime: fields.at,
      createdBy: fields.by,
      lastModifiedBy: fields.by,
      deleted: false,
      uniqueId: this.rng.guid().toUpperCase(),
      eTagVersion: 1,
      cTagVersion: 1,
      changeSeq: drive.changeSeq,
      changedAt: fields.at,
    };
    if (fields.kind === 'file') this.setContent(item, fields.content ?? Buffer.alloc(0));
    drive.items.set(item.id, item);
    return item;
  }

  setContent(item: MsItem, content: Buffer): void {
    this.contents.set(item.id, content);
    item.size = content.length;
    item.mimeType = mimeTypeFor(item.name);
    item.quickXorHash = quickXorHashBase64(content);
  }

  /** Stamps a change so the next delta round reports the item. */
  touch(drive: MsDrive, item: MsItem, at: string): void {
    drive.changeSeq += 1;
    item.changeSeq = drive.changeSeq;
    item.changedAt = at;
  }
}
