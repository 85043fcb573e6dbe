import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Command, Option } from 'commander';
import { CliError } from '../errors.ts';
import { printJson, printTable } from '../output.ts';
import { apiFor, globals, positiveInt, result, say } from './context.ts';
import { formatBytes } from './watch.ts';

const bodyStream = (res: Response) => Readable.fromWeb(res.body as import('node:stream/web').ReadableStream);

/** Writes a response body to `file` through `<file>.partial`, so a file by that name is always complete. */
async function toFile(res: Response, file: string): Promise<number> {
  const tmp = `${file}.partial`;
  await pipeline(bodyStream(res), fs.createWriteStream(tmp));
  fs.renameSync(tmp, file);
  return fs.statSync(file).size;
}

/** The file name the server suggests (Content-Disposition), reduced to a plain name in the current directory. */
function suggestedName(res: Response, fallback: string): string {
  const header = res.headers.get('content-disposition') ?? '';
  const star = /filename\*=UTF-8''([^;]+)/i.exec(header);
  const plain = /filename="([^"]+)"/i.exec(header);
  let name = fallback;
  try {
    name = star ? decodeURIComponent(star[1]) : (plain?.[1] ?? fallback);
  } catch {
    // a malformed header: keep the fallback
  }
  return path.basename(name).replace(/^\.+/, '') || fallback;
}

export function registerItemCommands(program: Command): void {
  program
    .command('manifest')
    .description("download a collection's chain-of-custody manifest")
    .argument('<collection>', 'collection id')
    .addOption(new Option('--format <format>', 'manifest format').choices(['csv', 'json']).default('json'))
    .option('--out <file>', 'write to this file instead of stdout')
    .action(async (id: string, opts: { format: 'csv' | 'json'; out?: string }, cmd: Command) => {
      const res = await apiFor(cmd).manifest(id, opts.format);
      if (!opts.out) return void (await pipeline(bodyStream(res), process.stdout, { end: false }));
      const size = await toFile(res, opts.out);
      if (globals(cmd).json) printJson({ file: opts.out, format: opts.format, bytes: size });
      else say(`wrote ${opts.out} (${formatBytes(size)})`);
    });

  const items = program.command('items').description("list a collection's items and download their content");
  items
    .command('list')
    .description("list a collection's items, oldest first")
    .argument('<collection>', 'collection id')
    .option('--kind <kind>', 'only items of this kind')
    .option('--custodian <id-or-email>', 'only items of this custodian: their provider user id or e-mail')
    .option('--limit <n>', 'at most this many', positiveInt, 1000)
    .action(async (id: string, opts: { kind?: string; custodian?: string; limit: number }, cmd: Command) => {
      const rows = await apiFor(cmd).listItems(id, { kind: opts.kind, custodian: opts.custodian }, opts.limit);
      if (globals(cmd).json) printJson(rows);
      else
        printTable(
          rows.map((i) => {
            const named = i as typeof i & { custodian_name?: string | null; custodian_email?: string | null };
            return {
              id: i.onna_id,
              kind: i.kind,
              custodian: named.custodian_name || named.custodian_email || i.custodian,
              size: i.size,
              path: i.path,
            };
          }),
          ['id', 'kind', 'custodian', 'size', 'path'],
        );
    });
  items
    .command('download')
    .description("download an item's content (to the name it was collected under, unless --output)")
    .argument('<collection>', 'collection id')
    .argument('<item>', 'item id')
    .option('--output <file>', 'write here (`-` = stdout)')
    .action(async (id: string, itemId: string, opts: { output?: string }, cmd: Command) => {
      const res = await apiFor(cmd).itemContent(id, itemId);
      if (opts.output === '-') return void (await pipeline(bodyStream(res), process.stdout, { end: false }));
      const file = opts.output ?? suggestedName(res, itemId);
      if (!opts.output && fs.existsSync(file)) {
        await res.body?.cancel();
        throw new CliError(`${file} exists: pass --output <file> to choose where to write`);
      }
      const size = await toFile(res, file);
      const sha256 = res.headers.get('etag')?.replace(/"/g, '') ?? null;
      if (globals(cmd).json) printJson({ file, bytes: size, sha256 });
      else result(`${file} (${formatBytes(size)}${sha256 ? `, sha256 ${sha256}` : ''})`);
    });

  program
    .command('search')
    .description('full-text search over the account (the query language of POST /v1/search)')
    .argument('<query>', 'e.g. "quarterly budget" OR forecast*')
    .option('--collection <id...>', 'only these collections')
    .option('--workspace <id>', 'only this workspace')
    .option('--size <n>', 'results per page (max 100)', positiveInt, 20)
    .action(async (query: string, opts: { collection?: string[]; workspace?: string; size: number }, cmd: Command) => {
      const res = await apiFor(cmd).search({
        query,
        size: opts.size,
        collection_ids: opts.collection,
        workspace_id: opts.workspace,
      });
      if (globals(cmd).json) return printJson(res);
      printTable(
        res.results.map((r) => ({
          id: r.item.onna_id,
          kind: r.item.kind,
          path: r.item.path,
          match: (r.highlights[0] ?? '').replace(/<\/?mark>/g, '*'),
        })),
        ['id', 'kind', 'path', 'match'],
      );
      // `gte`: more items match than the search counts (POST /v1/search, total_relation)
      const more = res.total_relation === 'gte' ? ' or more' : '';
      say(`${res.total}${more} match${res.total === 1 && !more ? '' : 'es'}`);
    });
}
