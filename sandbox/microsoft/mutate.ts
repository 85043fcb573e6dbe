import { identityOf, isoSeconds } from './model.ts';
import type { TenantModel } from './model.ts';
import { seededBytes } from './rng.ts';
import type { MsDrive, MsItem, MsUser } from './types.ts';

export interface MsMutations {
  addFile(userId: string, parentId: string, name: string, bytes?: Uint8Array): MsItem;
  addFolder(userId: string, parentId: string, name: string): MsItem;
  modifyFile(userId: string, itemId: string, bytes?: Uint8Array): MsItem;
  /** Deletes the item and, for a folder, everything beneath it (all reported as deleted by delta). */
  deleteItem(userId: string, itemId: string): void;
  moveItem(userId: string, itemId: string, newParentId: string, newName?: string): MsItem;
  renameItem(userId: string, itemId: string, newName: string): MsItem;
}

export function createMutations(model: TenantModel, now: () => Date, seed: number, fileSize: number): MsMutations {
  let generated = 0;
  const contentFor = (bytes: Uint8Array | undefined) =>
    bytes ? Buffer.from(bytes) : seededBytes(seed, `mutation/${++generated}`, Math.max(1, fileSize));

  const driveOf = (userId: string): { user: MsUser; drive: MsDrive } => {
    const user = model.user(userId);
    if (!user) throw new Error(`sandbox: unknown user ${userId}`);
    if (!user.drive) throw new Error(`sandbox: user ${userId} has no OneDrive`);
    return { user, drive: user.drive };
  };
  const live = (drive: MsDrive, itemId: string): MsItem => {
    const item = model.liveItem(drive, itemId);
    if (!item) throw new Error(`sandbox: no live item ${itemId}`);
    return item;
  };
  const folder = (drive: MsDrive, itemId: string): MsItem => {
    const item = live(drive, itemId);
    if (item.kind !== 'folder') throw new Error(`sandbox: ${itemId} is not a folder`);
    return item;
  };
  const assertFreeName = (drive: MsDrive, parentId: string, name: string, except?: string) => {
    const clash = model
      .liveChildren(drive, parentId)
      .find((c) => c.id !== except && c.name.toLowerCase() === name.toLowerCase());
    if (clash) throw new Error(`sandbox: nameAlreadyExists: ${name}`);
  };
  const stamp = (drive: MsDrive, item: MsItem, user: MsUser) => {
    const at = isoSeconds(now());
    item.lastModifiedDateTime = at;
    item.lastModifiedBy = identityOf(user);
    item.eTagVersion += 1;
    model.touch(drive, item, at);
  };

  return {
    addFile(userId, parentId, name, bytes) {
      const { user, drive } = driveOf(userId);
      folder(drive, parentId);
      assertFreeName(drive, parentId, name);
      drive.changeSeq += 1;
      const at = isoSeconds(now());
      return model.newItem(drive, {
        name,
        parentId,
        kind: 'file',
        by: identityOf(user),
        at,
        content: contentFor(bytes),
      });
    },
    addFolder(userId, parentId, name) {
      const { user, drive } = driveOf(userId);
      folder(drive, parentId);
      assertFreeName(drive, parentId, name);
      drive.changeSeq += 1;
      return model.newItem(drive, { name, parentId, kind: 'folder', by: identityOf(user), at: isoSeconds(now()) });
    },
    modifyFile(userId, itemId, bytes) {
      const { user, drive } = driveOf(userId);
      const item = live(drive, itemId);
      if (item.kind !== 'file') throw new Error(`sandbox: ${itemId} is not a file`);
      model.setContent(item, contentFor(bytes));
      item.cTagVersion += 1;
      stamp(drive, item, user);
      return item;
    },
    deleteItem(userId, itemId) {
      const { drive } = driveOf(userId);
      const item = live(drive, itemId);
      if (item.parentId === null) throw new Error('sandbox: the drive root cannot be deleted');
      const doomed = [...drive.items.values()].filter((i) => !i.deleted && model.isAncestor(drive, item.id, i.id));
      const at = isoSeconds(now());
      for (const victim of doomed) {
        victim.deleted = true;
        model.touch(drive, victim, at);
      }
    },
    moveItem(userId, itemId, newParentId, newName) {
      const { user, drive } = driveOf(userId);
      const item = live(drive, itemId);
      folder(drive, newParentId);
      if (item.parentId === null) throw new Error('sandbox: the drive root cannot be moved');
      if (model.isAncestor(drive, item.id, newParentId)) throw new Error('sandbox: cannot move a folder into itself');
      const name = newName ?? item.name;
      assertFreeName(drive, newParentId, name, item.id);
      item.parentId = newParentId;
      item.name = name;
      stamp(drive, item, user);
      return item;
    },
    renameItem(userId, itemId, newName) {
      const { user, drive } = driveOf(userId);
      const item = live(drive, itemId);
      if (item.parentId === null) throw new Error('sandbox: the drive root cannot be renamed');
      assertFreeName(drive, item.parentId, newName, item.id);
      item.name = newName;
      stamp(drive, item, user);
      return item;
    },
  };
}
