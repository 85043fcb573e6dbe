import { Command, Option } from 'commander';
import { CliError, EXIT } from '../errors.ts';
import { printJson, printTable } from '../output.ts';
import { apiFor, globals, result } from './context.ts';

const repeat = (value: string, prev: string[] = []) => [...prev, value];

export function registerHoldCommands(program: Command): void {
  const holds = program.command('holds').description('legal holds: freeze deletion of collections and workspaces');
  holds
    .command('list')
    .description("the account's legal holds, active and released")
    .addOption(new Option('--status <status>', 'only active or only released holds').choices(['active', 'released']))
    .action(async (opts: { status?: string }, cmd: Command) => {
      const rows = await apiFor(cmd).listHolds(opts.status);
      if (globals(cmd).json) return printJson(rows);
      printTable(
        rows.map((h) => ({
          id: h.onna_id,
          name: h.name,
          status: h.status,
          covers: [...(h.workspace_id ? [`workspace ${h.workspace_id}`] : []), ...h.collection_ids].join(', '),
          created: h.creation_datetime,
          released: h.released_at ?? null,
        })),
        ['id', 'name', 'status', 'covers', 'created', 'released'],
      );
    });
  holds
    .command('create')
    .description('place a legal hold on collections and/or a workspace; prints its id')
    .requiredOption('--name <name>', 'the matter')
    .option('--description <text>', 'why', '')
    .option('--collection <id>', 'a collection to hold (repeatable)', repeat)
    .option('--workspace <id>', 'a workspace to hold, with every collection in it now and later')
    .action(
      async (opts: { name: string; description: string; collection?: string[]; workspace?: string }, cmd: Command) => {
        if (!opts.collection?.length && !opts.workspace)
          throw new CliError('a hold needs --collection <id> (repeatable), --workspace <id> or both', EXIT.usage);
        const created = await apiFor(cmd).createHold({
          name: opts.name,
          description: opts.description,
          ...(opts.collection?.length && { collection_ids: opts.collection }),
          ...(opts.workspace && { workspace_id: opts.workspace }),
        });
        if (globals(cmd).json) printJson(created);
        else result(created.onna_id);
      },
    );
  holds
    .command('release')
    .description('release a legal hold (it stays listed as released)')
    .argument('<hold>', 'hold id')
    .action(async (id: string, _opts, cmd: Command) => {
      await apiFor(cmd).releaseHold(id);
      if (globals(cmd).json) printJson({ released: id });
      else result(`released hold ${id}`);
    });
}
