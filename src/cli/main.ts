import { Command, CommanderError, InvalidArgumentError, type Option } from 'commander';
import { ConfigError, environmentHelp, loadConfig, type Config } from '../config.ts';
import { registerApiCommands } from './api/commands.ts';
import { CliError, EXIT } from './errors.ts';

/** The process keeps running (a server, a worker, the simulators): do not exit when the action returns. */
let keepRunning = false;
let exitCode: number = EXIT.ok;

function config(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, EXIT.usage);
    throw err;
  }
}

const port = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('expected a port number from 0 to 65535 (0 = any free port).');
  return n;
};

function buildProgram(): Command {
  const program = new Command('custody')
    .description('Custody: verifiable, complete collection syncs from Zoom and Microsoft 365.')
    .option(
      '--url <url>',
      'server of the API commands (default: $CUSTODY_URL, else the login profile, else http://127.0.0.1:8080)',
    )
    .option('--json', 'print JSON for scripts')
    .option('--debug', 'print stack traces with errors')
    .showSuggestionAfterError(true)
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .exitOverride()
    .configureOutput({
      outputError: (text, write) =>
        write(
          `${text
            .replace(/^error: /, 'custody: ')
            .trim()
            .replace(/\s*\n\s*/g, ' ')
            .replace('(Did you mean', '(did you mean')}\n`,
        ),
    });

  program
    .command('serve')
    .description('run the API (and, on the embedded default, the workers)')
    .addHelpText('after', () => `\n${environmentHelp()}`)
    .action(async () => {
      const c = config();
      await (await import('./serve.ts')).serve(c, { workers: c.sync.workers === 'inline' });
      keepRunning = true;
    });
  program
    .command('worker')
    .description('run sync workers only (PostgreSQL deployments)')
    .addHelpText('after', () => `\n${environmentHelp()}`)
    .action(async () => {
      await (await import('./serve.ts')).serve(config(), { workers: true, api: false });
      keepRunning = true;
    });

  const admin = program
    .command('admin')
    .description('manage accounts and API clients directly in the database (DATA_DIR / DATABASE_URL)');
  admin
    .command('create-client')
    .description('create an API client (and its account if new); prints {account_id, client_id, client_secret}')
    .requiredOption('--account <name>', 'account name')
    .option(
      '--redirect-allow <url>',
      'allow this OAuth redirect URL (repeatable)',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .action(async (opts: { account: string; redirectAllow?: string[] }) =>
      (await import('./admin.ts')).createClient(config(), opts),
    );
  admin
    .command('allow-redirect')
    .description("add a URL to an account's OAuth redirect allowlist")
    .requiredOption('--account <name>', 'account name')
    .argument('<url>', 'absolute http(s) URL')
    .action(async (url: string, opts: { account: string }) =>
      (await import('./admin.ts')).allowRedirect(config(), opts, url),
    );
  admin
    .command('revoke-client')
    .description('revoke an API client; its tokens stop working at once')
    .argument('<client_id>', 'the client')
    .action(async (clientId: string) => (await import('./admin.ts')).revokeClient(config(), clientId));

  program
    .command('sandbox')
    .description('run the Zoom and Microsoft simulators standalone')
    .option('--zoom-port <port>', 'Zoom simulator port (0 = any free port)', port, 9100)
    .option('--ms-port <port>', 'Microsoft simulator port (0 = any free port)', port, 9200)
    .action(async (opts: { zoomPort: number; msPort: number }) => {
      await (await import('./sandbox.ts')).sandbox(opts);
      keepRunning = true;
    });

  registerApiCommands(program, (code) => (exitCode = code));
  checkMandatoryAfterUnknown(program);
  return program;
}

/**
 * Commander reports a missing required option before an unknown one, so `--acount x` would be answered with
 * "required option '--account' not specified". The required options are checked here instead, after commander
 * has named any unknown option (with its suggestion).
 */
function checkMandatoryAfterUnknown(program: Command): void {
  const required = new Map<Command, Option[]>();
  const walk = (cmd: Command) => {
    const mandatory = cmd.options.filter((o) => o.mandatory);
    for (const o of mandatory) o.mandatory = false;
    if (mandatory.length) required.set(cmd, mandatory);
    cmd.commands.forEach(walk);
  };
  walk(program);
  program.hook('preAction', (_root, action) => {
    const missing = (required.get(action) ?? []).find((o) => action.getOptionValue(o.attributeName()) === undefined);
    if (missing)
      action.error(`error: required option '${missing.flags}' not specified`, {
        code: 'commander.missingMandatoryOptionValue',
      });
  });
}

async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  if (argv.length === 0) {
    program.outputHelp();
    return EXIT.ok;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0; every parse error (unknown option or command, missing argument) is bad usage
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const debug = argv.includes('--debug');
    if (err instanceof CliError) {
      process.stderr.write(`custody: ${err.message}\n`);
      if (debug && err.stack) process.stderr.write(`${err.stack}\n`);
      return err.exitCode;
    }
    process.stderr.write(
      `custody: ${(err as Error).message ?? String(err)}${debug ? '' : ' (run with --debug for details)'}\n`,
    );
    if (debug) process.stderr.write(`${(err as Error).stack ?? ''}\n`);
    return EXIT.error;
  }
}

const code = await main(process.argv.slice(2));
if (!keepRunning) {
  process.exitCode = code;
  // let stdout drain before exiting (a piped manifest can be large)
  process.stdout.write('', () => process.exit(code));
}
