import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { Command, InvalidArgumentError, Option } from 'commander';
import { loadCliConfig } from '../../config.ts';
import { CliError, EXIT } from '../errors.ts';
import { printJson, printTable } from '../output.ts';
import { connect } from './client.ts';
import { CustodyApi } from './custody-api.ts';
import { registerExportCommands } from './exports.ts';
import { readProfile, writeProfile } from './profile.ts';
import { describeRun, exitCodeFor, formatBytes, watchRun } from './watch.ts';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

interface Globals {
  url?: string;
  json?: boolean;
  debug?: boolean;
}

const globals = (cmd: Command) => cmd.optsWithGlobals<Globals>();

function apiFor(cmd: Command): CustodyApi {
  const cli = loadCliConfig();
  const profile = readProfile(cli.configDir);
  const url = normalizeUrl(globals(cmd).url ?? cli.url ?? profile?.url ?? DEFAULT_URL);
  const creds = profile ? { clientId: profile.client_id, clientSecret: profile.client_secret } : null;
  return new CustodyApi(connect(url, creds));
}

function normalizeUrl(value: string): string {
  try {
    const u = new URL(value);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
    return u.origin + u.pathname.replace(/\/+$/, '');
  } catch {
    throw new CliError(`not an http(s) URL: ${value}`, EXIT.usage);
  }
}

const positiveInt = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer.');
  return n;
};

/** The commands that talk to a running server over its API. Each returns the exit code. */
export function registerApiCommands(program: Command, setExit: (code: number) => void): void {
  registerExportCommands(program, apiFor, (cmd) => Boolean(globals(cmd).json), setExit);
  program
    .command('login')
    .description('check API client credentials against a server and store them in the profile (mode 0600)')
    .requiredOption('--client-id <id>', 'from `custody admin create-client`')
    .requiredOption('--client-secret <secret>', 'from `custody admin create-client`')
    .action(async (opts: { clientId: string; clientSecret: string }, cmd: Command) => {
      const cli = loadCliConfig();
      const url = normalizeUrl(globals(cmd).url ?? cli.url ?? DEFAULT_URL);
      await connect(url, { clientId: opts.clientId, clientSecret: opts.clientSecret }).run('sign-in', (c) => c.signIn());
      const file = writeProfile(cli.configDir, { url, client_id: opts.clientId, client_secret: opts.clientSecret });
      if (globals(cmd).json) printJson({ url, client_id: opts.clientId, profile: file });
      else process.stdout.write(`Logged in to ${url} as ${opts.clientId} (profile ${file}).\n`);
    });

  const workspaces = program.command('workspaces').description('list and create workspaces');
  workspaces
    .command('list')
    .description("list the account's workspaces")
    .action(async (_opts, cmd: Command) => {
      const rows = await apiFor(cmd).listWorkspaces();
      if (globals(cmd).json) printJson(rows);
      else printTable(rows.map((w) => ({ id: w.onna_id, name: w.name, created: w.creation_datetime, description: w.description })), ['id', 'name', 'created', 'description']);
    });
  workspaces
    .command('create')
    .description('create a workspace')
    .requiredOption('--name <name>', 'the workspace name')
    .option('--description <text>', 'what it is for', '')
    .action(async (opts: { name: string; description: string }, cmd: Command) => {
      const created = await apiFor(cmd).createWorkspace(opts);
      if (globals(cmd).json) printJson(created);
      else process.stdout.write(`${created.onna_id}\n`);
    });

  const collections = program.command('collections').description('list, show, create and start collections');
  collections
    .command('list')
    .description("list the account's collections")
    .option('--workspace <id>', 'only this workspace')
    .action(async (opts: { workspace?: string }, cmd: Command) => {
      const rows = await apiFor(cmd).listCollections(opts.workspace);
      if (globals(cmd).json) printJson(rows);
      else
        printTable(
          rows.map((c) => ({ id: c.onna_id, name: c.name, type: c.type, status: c.sync_status, sync: c.type_sync, workspace: c.onna_parent_id })),
          ['id', 'name', 'type', 'status', 'sync', 'workspace'],
        );
    });
  collections
    .command('show')
    .description('a collection, its filters and its latest run')
    .argument('<id>', 'collection id')
    .action(async (id: string, _opts, cmd: Command) => {
      const c = await apiFor(cmd).getCollection(id);
      if (globals(cmd).json) return printJson(c);
      const run = c.latest_run;
      const lines = [
        `${c.name} (${c.onna_id})`,
        `  type ${c.type}, sync ${c.type_sync}, status ${c.sync_status}${c.status_reason ? ` (${c.status_reason})` : ''}`,
        `  workspace ${c.onna_parent_id}, wallet ${c.credential_id}`,
        `  latest run: ${run ? describeRun(run) : 'none'}`,
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    });
  collections
    .command('create')
    .description('create a collection in a workspace, bound to a wallet')
    .requiredOption('--workspace <id>', 'the workspace')
    .requiredOption('--name <name>', 'the collection name')
    .addOption(new Option('--type <type>', 'the collection type').makeOptionMandatory())
    .requiredOption('--credential <wallet_id>', 'a wallet of the matching config_type')
    .action(async (opts: { workspace: string; name: string; type: string; credential: string }, cmd: Command) => {
      const created = await apiFor(cmd).createCollection({ name: opts.name, onna_parent_id: opts.workspace, type: opts.type, credential_id: opts.credential });
      if (globals(cmd).json) printJson(created);
      else process.stdout.write(`${created.onna_id}\n`);
    });
  collections
    .command('start')
    .description('start a sync; with --watch, follow it to its end (exit 0 only when the run succeeded)')
    .argument('<id>', 'collection id')
    .option('--watch', 'show live progress per custodian and wait for the outcome')
    .option('--interval <ms>', 'how often --watch polls the run', positiveInt, 1000)
    .action(async (id: string, opts: { watch?: boolean; interval: number }, cmd: Command) => {
      const api = apiFor(cmd);
      const started = await api.startCollection(id);
      const json = globals(cmd).json;
      if (!opts.watch) {
        if (json) printJson(started);
        else process.stdout.write(`${started.created ? 'started' : 'already running'}: run ${started.run_id}\n`);
        return;
      }
      if (!json) process.stderr.write(`${started.created ? 'Started' : 'Following the active'} run ${started.run_id}…\n`);
      const run = await watchRun(api, id, started.run_id, { intervalMs: opts.interval, bars: !json && Boolean(process.stderr.isTTY) });
      if (json) printJson(run);
      else process.stdout.write(`${describeRun(run)}\n`);
      setExit(exitCodeFor(run.status));
    });

  program
    .command('manifest')
    .description("download a collection's chain-of-custody manifest")
    .argument('<id>', 'collection id')
    .addOption(new Option('--format <format>', 'manifest format').choices(['csv', 'json']).default('json'))
    .option('--out <file>', 'write to this file instead of stdout')
    .action(async (id: string, opts: { format: 'csv' | 'json'; out?: string }, cmd: Command) => {
      const res = await apiFor(cmd).manifest(id, opts.format);
      const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream);
      if (!opts.out) return void (await pipeline(body, process.stdout, { end: false }));
      const tmp = `${opts.out}.partial`;
      await pipeline(body, fs.createWriteStream(tmp));
      fs.renameSync(tmp, opts.out);
      const size = fs.statSync(opts.out).size;
      if (globals(cmd).json) printJson({ file: opts.out, format: opts.format, bytes: size });
      else process.stderr.write(`wrote ${opts.out} (${formatBytes(size)})\n`);
    });

  const items = program.command('items').description("list a collection's items");
  items
    .command('list')
    .description("list a collection's items, oldest first")
    .argument('<id>', 'collection id')
    .option('--kind <kind>', 'only items of this kind')
    .option('--custodian <id>', 'only items of this custodian')
    .option('--limit <n>', 'at most this many', positiveInt, 1000)
    .action(async (id: string, opts: { kind?: string; custodian?: string; limit: number }, cmd: Command) => {
      const rows = await apiFor(cmd).listItems(id, { kind: opts.kind, custodian: opts.custodian }, opts.limit);
      if (globals(cmd).json) printJson(rows);
      else
        printTable(
          rows.map((i) => ({ id: i.onna_id, kind: i.kind, custodian: i.custodian, size: i.size, path: i.path })),
          ['id', 'kind', 'custodian', 'size', 'path'],
        );
    });

  program
    .command('search')
    .description('full-text search over the account (the query language of POST /v1/search)')
    .argument('<query>', 'e.g. "quarterly budget" OR forecast*')
    .option('--collection <id...>', 'only these collections')
    .option('--workspace <id>', 'only this workspace')
    .option('--size <n>', 'results per page (max 100)', positiveInt, 20)
    .action(async (query: string, opts: { collection?: string[]; workspace?: string; size: number }, cmd: Command) => {
      const res = await apiFor(cmd).search({ query, size: opts.size, collection_ids: opts.collection, workspace_id: opts.workspace });
      if (globals(cmd).json) return printJson(res);
      printTable(
        res.results.map((r) => ({ id: r.item.onna_id, kind: r.item.kind, path: r.item.path, match: (r.highlights[0] ?? '').replace(/<\/?mark>/g, '*') })),
        ['id', 'kind', 'path', 'match'],
      );
      process.stderr.write(`${res.total} match${res.total === 1 ? '' : 'es'}\n`);
    });
}
