// Whose drive it is, as a person reading a report or an item path knows them: their name and e-mail, read on a
// user's first run, then only in runs whose delta brings items (collect.ts). Item paths start with the owner
// (`alice@contoso.com/Finance/q3.xlsx`), so that two people's `/Finance` never look the same; the e-mail is `mail`,
// else the user principal name, else the user id.
import type { CollectContext, CollectEvent, ItemInput } from '../types.ts';

export interface DriveOwner {
  id: string;
  name: string | null;
  email: string | null;
}

interface GraphUser {
  id?: string;
  displayName?: string | null;
  mail?: string | null;
  userPrincipalName?: string | null;
}

/** The user's name and e-mail from the directory; a user Graph cannot show now (deleted...) gets neither. */
export async function driveOwner(ctx: CollectContext, graphUrl: string, userId: string): Promise<DriveOwner> {
  try {
    const u = await ctx.http.json<GraphUser>(
      `${graphUrl}/users/${encodeURIComponent(userId)}?$select=id,displayName,mail,userPrincipalName`,
      { signal: ctx.signal, cost: 1 },
    );
    return { id: userId, name: u.displayName || null, email: u.mail || u.userPrincipalName || null };
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    // the drive listing that follows reports a user who is gone; names are only lost for this run's new items
    ctx.log.warn({ user_id: userId, err: (error as Error).message }, 'OneDrive user name not read');
    return { id: userId, name: null, email: null };
  }
}

/** The owner's part of an item path: the e-mail, else the user id. */
export function ownerLabel(o: DriveOwner): string {
  return o.email ?? o.id;
}

/** The item as stored: its drive path after its owner, with the owner's name and e-mail. */
export function ownedItem(item: ItemInput, o: DriveOwner): ItemInput {
  return {
    ...item,
    path: `${ownerLabel(o)}${item.path}`,
    custodianName: item.custodianName ?? o.name,
    custodianEmail: item.custodianEmail ?? o.email,
  };
}

/** The drive path (`/Finance/q3.xlsx`) of a stored item path, with or without its owner in front. */
export function drivePath(stored: string): string {
  if (stored.startsWith('/')) return stored;
  const slash = stored.indexOf('/');
  return slash < 0 ? '' : stored.slice(slash);
}

/**
 * The drive's events with their owner. `fresh` reads the owner again: called before the first item when the owner
 * given was remembered from an earlier run, so a run with changes names them as the directory does now.
 */
export async function* owned(
  events: AsyncIterable<CollectEvent>,
  o: DriveOwner,
  fresh?: () => Promise<DriveOwner>,
): AsyncGenerator<CollectEvent> {
  for await (const ev of events) {
    if (ev.type !== 'item') {
      yield ev;
      continue;
    }
    if (fresh) {
      o = await fresh();
      fresh = undefined;
    }
    yield { ...ev, item: ownedItem(ev.item, o) };
  }
}
