// The folder skeleton of one drive, kept between runs. Delta never returns paths and reports a moved or
// renamed folder without its descendants (reference §2.6), so paths and ancestry are computed from this
// id -> (parent, name) map, never from the response.
import type { UserFolders } from '../../domain/filters/edrive.ts';

/** [parent id (null for the root), name, eTag]. Arrays keep checkpoints small. */
export type FolderNode = [parent: string | null, name: string, eTag: string | null];
export type FolderMap = Record<string, FolderNode>;

const MAX_DEPTH = 10_000;

export class FolderTree {
  constructor(readonly nodes: FolderMap = {}) {}

  get(id: string): FolderNode | undefined {
    return Object.hasOwn(this.nodes, id) ? this.nodes[id] : undefined;
  }

  has(id: string): boolean {
    return Object.hasOwn(this.nodes, id);
  }

  set(id: string, node: FolderNode): void {
    this.nodes[id] = node;
  }

  delete(id: string): void {
    delete this.nodes[id];
  }

  ids(): string[] {
    return Object.keys(this.nodes);
  }

  /**
   * Ids from `id` up to the root, `id` first; undefined when a link is missing (a parent not seen yet) or the
   * map holds a cycle. `lookup` lets a caller see an earlier state of some nodes.
   */
  chain(id: string, lookup: (id: string) => FolderNode | undefined = (x) => this.get(x)): string[] | undefined {
    const out: string[] = [];
    const seen = new Set<string>();
    let current: string | null = id;
    while (current !== null) {
      if (seen.has(current) || out.length > MAX_DEPTH) return undefined;
      const node = lookup(current);
      if (!node) return undefined;
      seen.add(current);
      out.push(current);
      current = node[0];
    }
    return out;
  }

  /** `/A/B` for a folder (`''` for the root); undefined when the chain is incomplete. */
  path(id: string, lookup?: (id: string) => FolderNode | undefined): string | undefined {
    const get = lookup ?? ((x: string) => this.get(x));
    const chain = this.chain(id, get);
    if (!chain) return undefined;
    return chain
      .slice(0, -1)
      .reverse()
      .map((x) => `/${get(x)![1]}`)
      .join('');
  }
}

/** Whether an item (given its chain of ids, itself first, up to the root) falls within the user's selection. */
export function inSelection(selection: UserFolders, chain: string[]): boolean {
  if (selection.all_selected) {
    const excluded = new Set(selection.excluded.map((e) => e.id));
    return !chain.some((id) => excluded.has(id));
  }
  const selected = new Set(selection.selected.map((e) => e.id));
  return chain.some((id) => selected.has(id));
}
