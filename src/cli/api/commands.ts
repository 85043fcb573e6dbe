import { Command, Option } from 'commander';
import { loadCliConfig } from '../../config.ts';
import { printJson, printTable } from '../output.ts';
import { connect } from './client.ts';
import { registerCollectionCommands } from './collections.ts';
import { apiFor, DEFAULT_URL, globals, normalizeUrl, result } from './context.ts';
import { registerExportCommands } from './exports.ts';
import { registerHoldCommands } from './holds.ts';
import { registerItemCommands } from './items.ts';
import { forgetToken, writeProfile, writeToken } from './profile.ts';
import { registerRunCommands } from './runs.ts';

export { DEFAULT_URL };

/** The commands that talk to a running server over its API. */
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
      forgetToken(cli.configDir);
      // the token that proves the credentials is the one the next commands use
      let token: { access_token: string; expires_at: number } | undefined;
      await connect(
        url,
        { clientId: opts.clientId, clientSecret: opts.clientSecret },
        { onTokens: (pair, expiresAt) => (token = { access_token: pair.access_token, expires_at: expiresAt }) },
      ).run('sign-in', (c) => c.signIn());
      const file = writeProfile(cli.configDir, { url, client_id: opts.clientId, client_secret: opts.clientSecret });
      if (token) writeToken(cli.configDir, { url, client_id: opts.clientId, ...token });
      if (globals(cmd).json) printJson({ url, client_id: opts.clientId, profile: file });
      else result(`Logged in to ${url} as ${opts.clientId} (profile ${file}).`);
    });

  const workspaces = program.command('workspaces').description('list, create and delete workspaces');
  workspaces
    .command('list')
    .description("list the account's workspaces")
    .action(async (_opts, cmd: Command) => {
      const rows = await apiFor(cmd).listWorkspaces();
      if (globals(cmd).json) printJson(rows);
      else
        printTable(
          rows.map((w) => ({ id: w.onna_id, name: w.name, created: w.creation_datetime, description: w.description })),
          ['id', 'name', 'created', 'description'],
        );
    });
  workspaces
    .command('create')
    .description('create a workspace; prints its id')
    .requiredOption('--name <name>', 'the workspace name')
    .option('--description <text>', 'what it is for', '')
    .action(async (opts: { name: string; description: string }, cmd: Command) => {
      const created = await apiFor(cmd).createWorkspace(opts);
      if (globals(cmd).json) printJson(created);
      else result(created.onna_id);
    });
  workspaces
    .command('delete')
    .description(
      'delete a workspace with its collections, items and content (permanent; refused while a legal hold covers it)',
    )
    .argument('<workspace>', 'workspace id')
    .action(async (id: string, _opts, cmd: Command) => {
      await apiFor(cmd).deleteWorkspace(id);
      if (globals(cmd).json) printJson({ deleted: id });
      else result(`deleted workspace ${id}`);
    });

  const wallets = program
    .command('wallets')
    .description('the provider connections (wallets) collections are paired through');
  wallets
    .command('list')
    .description("list the account's wallets (never any secret)")
    .action(async (_opts, cmd: Command) => {
      const rows = await apiFor(cmd).listWallets();
      if (globals(cmd).json) printJson(rows);
      else
        printTable(
          rows.map((w) => ({
            id: w.onna_id,
            name: w.name,
            type: w.config_type,
            paired: w.paired ? (w.paired_datetime ?? 'yes') : 'no',
            created: w.creation_datetime,
          })),
          ['id', 'name', 'type', 'paired', 'created'],
        );
    });
  wallets
    .command('create')
    .description(
      'create an empty wallet for a collection type; prints its id (pair it with `custody collections pair`)',
    )
    .requiredOption('--name <name>', 'a name to recognise it by')
    .addOption(
      new Option(
        '--type <type>',
        'the collection type it serves: conf (Zoom) or edrive (OneDrive)',
      ).makeOptionMandatory(),
    )
    .option('--credential-type <name>', 'credential_type_name', 'Datasource')
    .action(async (opts: { name: string; type: string; credentialType: string }, cmd: Command) => {
      const created = await apiFor(cmd).createWallet({
        name: opts.name,
        config_type: opts.type,
        credential_type_name: opts.credentialType,
      });
      if (globals(cmd).json) printJson(created);
      else result(created.onna_id);
    });
  wallets
    .command('delete')
    .description('delete a wallet and its stored grant (refused while a collection uses it)')
    .argument('<wallet>', 'wallet id')
    .action(async (id: string, _opts, cmd: Command) => {
      await apiFor(cmd).deleteWallet(id);
      if (globals(cmd).json) printJson({ deleted: id });
      else result(`deleted wallet ${id}`);
    });

  registerCollectionCommands(program, setExit);
  registerRunCommands(program);
  registerHoldCommands(program);
  registerItemCommands(program);
}
