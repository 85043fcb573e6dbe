import type { Command } from 'commander';
import { printJson, printTable } from '../output.ts';
import { apiFor, globals } from './context.ts';
import type { CustodyApi } from './custody-api.ts';

type Row = Record<string, unknown> & { id: string };
interface Page {
  results?: Row[];
  entries?: Row[];
  next_page_token?: string | null;
  next_marker?: string | null;
  _next?: string | null;
}

/** Every page of a discovery list: `conf` pages with offset/next_page_token, `edrive` users with marker/next_marker, folders with cursor/_next. */
async function all(
  api: CustodyApi,
  id: string,
  list: 'users' | 'folders' | 'channels',
  query: Record<string, string | undefined>,
): Promise<Row[]> {
  const rows: Row[] = [];
  let page: Page;
  const next: Record<string, string | undefined> = {};
  for (let i = 0; i < 1000; i++) {
    page = await api.discovery<Page>(id, list, { ...query, ...next });
    rows.push(...(page.results ?? page.entries ?? []));
    if (page.next_page_token) next.offset = page.next_page_token;
    else if (page.next_marker) next.marker = page.next_marker;
    else if (page._next) next.cursor = page._next;
    else break;
  }
  return rows;
}

const text = (v: unknown) => (typeof v === 'string' && v ? v : null);

/** Discovery from the terminal: the ids a filter needs (`collections users|folders|channels`). */
export function registerDiscoveryCommands(collections: Command): void {
  collections
    .command('users')
    .description(
      "the paired source's users: their ids are what a filter names (conf account_owners, edrive top-level keys)",
    )
    .argument('<collection>', 'collection id')
    .action(async (id: string, _opts, cmd: Command) => {
      const rows = await all(apiFor(cmd), id, 'users', {});
      if (globals(cmd).json) return printJson(rows);
      printTable(
        rows.map((u) => {
          const d = (u.data ?? {}) as Record<string, unknown>;
          const name =
            text(u.display_name) ?? ([text(d.first_name), text(d.last_name)].filter(Boolean).join(' ') || null);
          return {
            id: u.id,
            name,
            email: text(u.mail) ?? text(u.user_principal_name) ?? text(d.email),
            status: text(d.status),
          };
        }),
        ['id', 'name', 'email', 'status'],
      );
    });
  collections
    .command('folders')
    .description("an edrive user's folders (the drive root, or under --parent): ids for selected/excluded")
    .argument('<collection>', 'collection id')
    .requiredOption('--user <id>', 'a user id from `custody collections users`')
    .option('--parent <id>', 'list under this folder instead of the drive root')
    .action(async (id: string, opts: { user: string; parent?: string }, cmd: Command) => {
      const rows = await all(apiFor(cmd), id, 'folders', { user_id: opts.user, parent_id: opts.parent });
      if (globals(cmd).json) return printJson(rows);
      printTable(
        rows.map((f) => ({
          id: f.id,
          name: f.name,
          path: `/${((f.sorted_path_elements as Array<{ name: string }> | undefined) ?? []).map((p) => p.name).join('/')}`,
          size: f.size,
        })),
        ['id', 'name', 'path', 'size'],
      );
    });
  collections
    .command('channels')
    .description("a Zoom user's Team Chat channels: ids for a conf filter's chats")
    .argument('<collection>', 'collection id')
    .requiredOption('--user <id>', 'a user id from `custody collections users`')
    .action(async (id: string, opts: { user: string }, cmd: Command) => {
      const rows = await all(apiFor(cmd), id, 'channels', { user: opts.user });
      if (globals(cmd).json) return printJson(rows);
      printTable(
        rows.map((c) => ({ id: c.id, name: c.name, private: c.is_private })),
        ['id', 'name', 'private'],
      );
    });
}
