import fs from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { CliError, EXIT } from '../errors.ts';
import { printJson, printTable } from '../output.ts';
import { apiFor, globals, positiveInt, result, say } from './context.ts';
import { registerDiscoveryCommands } from './discovery.ts';
import { DEFAULT_CALLBACK, pairCollection } from './pair.ts';
import { describeRun, exitCodeFor, watchRun } from './watch.ts';

const seconds = (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a number of seconds above 0.');
  return n;
};

/** The filters as JSON from a file (`-` = stdin); a clear usage error when it is not JSON. */
function readFilters(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    throw new CliError(
      `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      EXIT.usage,
    );
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError(`${file} is not JSON: ${(err as Error).message}`, EXIT.usage);
  }
}

function indent(text: string, by: string): string {
  return text.replace(/^/gm, by);
}

export function registerCollectionCommands(program: Command, setExit: (code: number) => void): void {
  const collections = program
    .command('collections')
    .description('create, pair, filter, start, inspect and delete collections');
  collections
    .command('list')
    .description("list the account's collections")
    .option('--workspace <id>', 'only this workspace')
    .action(async (opts: { workspace?: string }, cmd: Command) => {
      const rows = await apiFor(cmd).listCollections(opts.workspace);
      if (globals(cmd).json) printJson(rows);
      else
        printTable(
          rows.map((c) => ({
            id: c.onna_id,
            name: c.name,
            type: c.type,
            status: c.sync_status,
            sync: c.type_sync,
            workspace: c.onna_parent_id,
          })),
          ['id', 'name', 'type', 'status', 'sync', 'workspace'],
        );
    });
  collections
    .command('show')
    .description('a collection, its filters and its latest run')
    .argument('<collection>', 'collection id')
    .action(async (id: string, _opts, cmd: Command) => {
      const c = await apiFor(cmd).getCollection(id);
      if (globals(cmd).json) return printJson(c);
      const run = c.latest_run;
      const filters =
        c.sync_filters === null || c.sync_filters === undefined
          ? '  filters: none saved'
          : `  filters:\n${indent(JSON.stringify(c.sync_filters, null, 2), '    ')}`;
      const lines = [
        `${c.name} (${c.onna_id})`,
        `  type ${c.type}, sync ${c.type_sync}, status ${c.sync_status}${c.status_reason ? ` (${c.status_reason})` : ''}`,
        `  workspace ${c.onna_parent_id}, wallet ${c.credential_id}${c.credentials_paired === undefined ? '' : c.credentials_paired ? ' (paired)' : ' (not paired: run `custody collections pair`)'}`,
        filters,
        `  latest run: ${run ? describeRun(run) : 'none'}`,
      ];
      result(lines.join('\n'));
    });
  collections
    .command('create')
    .description('create a collection in a workspace, bound to a wallet; prints its id')
    .requiredOption('--workspace <id>', 'the workspace')
    .requiredOption('--name <name>', 'the collection name')
    .addOption(
      new Option('--type <type>', 'the collection type: conf (Zoom) or edrive (OneDrive)').makeOptionMandatory(),
    )
    .requiredOption(
      '--credential <wallet_id>',
      'a wallet of the same type (`custody wallets create`, `custody wallets list`)',
    )
    .action(async (opts: { workspace: string; name: string; type: string; credential: string }, cmd: Command) => {
      const created = await apiFor(cmd).createCollection({
        name: opts.name,
        onna_parent_id: opts.workspace,
        type: opts.type,
        credential_id: opts.credential,
      });
      if (globals(cmd).json) printJson(created);
      else result(created.onna_id);
    });
  collections
    .command('pair')
    .description(
      "pair a collection's wallet with the provider: prints the consent URL (--open opens it), then waits for the browser to come back here with the pairing",
    )
    .argument('<collection>', 'collection id')
    .option('--open', 'open the consent URL in the default browser')
    .option(
      '--redirect-to <url>',
      "where the browser comes back: a loopback URL on the account's redirect allowlist, which this command listens at",
      DEFAULT_CALLBACK,
    )
    .option('--timeout <seconds>', 'give up after this long (a consent URL is valid for 10 minutes)', seconds, 600)
    .action(async (id: string, opts: { open?: boolean; redirectTo: string; timeout: number }, cmd: Command) => {
      const api = apiFor(cmd);
      const collection = await api.getCollection(id);
      const json = globals(cmd).json;
      await pairCollection(api, collection, {
        redirectTo: opts.redirectTo,
        open: Boolean(opts.open),
        timeoutMs: opts.timeout * 1000,
        printUrl: (url) => (json ? say(url) : result(url)),
      });
      if (json) printJson({ collection: id, wallet: collection.credential_id, paired: true });
      else result(`paired collection ${id} (wallet ${collection.credential_id})`);
    });
  registerDiscoveryCommands(collections);
  collections
    .command('filters')
    .description("save a collection's sync filters from a JSON file (--file), or print them (--show)")
    .argument('<collection>', 'collection id')
    .option(
      '--file <json>',
      'the whole filter object of the collection type (`-` reads stdin); replaces the saved filters',
    )
    .option('--show', 'print the saved filters as JSON')
    .addOption(new Option('--sync <type_sync>', 'also set the sync type').choices(['one', 'auto', 'arch']))
    .action(async (id: string, opts: { file?: string; show?: boolean; sync?: string }, cmd: Command) => {
      if (!opts.file && !opts.show)
        throw new CliError('say what to do: --file <json> saves filters, --show prints them', EXIT.usage);
      const api = apiFor(cmd);
      if (opts.file) {
        const filters = readFilters(opts.file);
        await api.patchCollection(id, { sync_filters: filters, ...(opts.sync && { type_sync: opts.sync }) });
        if (!opts.show) say(`saved the filters of ${id}`);
      }
      if (opts.show) printJson((await api.getCollection(id)).sync_filters ?? null);
    });
  collections
    .command('start')
    .description('start a sync; with --watch, follow it to its end (exit 0 only when the run succeeded)')
    .argument('<collection>', 'collection id')
    .option('--watch', 'show live progress per custodian and wait for the outcome')
    .option('--interval <ms>', 'how often --watch polls the run', positiveInt, 1000)
    .action(async (id: string, opts: { watch?: boolean; interval: number }, cmd: Command) => {
      const api = apiFor(cmd);
      const started = await api.startCollection(id);
      const json = globals(cmd).json;
      if (!opts.watch) {
        if (json) printJson(started);
        else result(`${started.created ? 'started' : 'already running'}: run ${started.run_id}`);
        return;
      }
      if (!json) say(`${started.created ? 'Started' : 'Following the active'} run ${started.run_id}…`);
      const run = await watchRun(api, id, started.run_id, {
        intervalMs: opts.interval,
        bars: !json && Boolean(process.stderr.isTTY),
      });
      if (json) printJson(run);
      else result(describeRun(run));
      setExit(exitCodeFor(run.status));
    });
  collections
    .command('delete')
    .description(
      'delete a collection with its items, runs and content (permanent; refused while a legal hold covers it)',
    )
    .argument('<collection>', 'collection id')
    .action(async (id: string, _opts, cmd: Command) => {
      await apiFor(cmd).deleteCollection(id);
      if (globals(cmd).json) printJson({ deleted: id });
      else result(`deleted collection ${id}`);
    });
}
