import { ConfigError, loadConfig } from '../config.ts';

const USAGE = `usage:
  custody serve                                   run the API (and, on the embedded default, the workers)
  custody worker                                  run sync workers only (PostgreSQL deployments)
  custody admin create-client --account <name> [--redirect-allow <url>]...
  custody admin allow-redirect --account <name> <url>
  custody admin revoke-client <client_id>
  custody sandbox                                 run the Zoom and Microsoft simulators standalone`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    throw err;
  }
  switch (command) {
    case 'serve':
      return (await import('./serve.ts')).serve(config, { workers: config.sync.workers === 'inline' });
    case 'worker':
      return (await import('./serve.ts')).serve(config, { workers: true, api: false });
    case 'admin':
      return (await import('./admin.ts')).admin(config, rest);
    case 'sandbox':
      return (await import('./sandbox.ts')).sandbox(config);
    default:
      process.stderr.write(`${USAGE}\n`);
      return command === undefined || command === '--help' ? 0 : 2;
  }
}

const code = await main(process.argv.slice(2));
if (code !== -1) process.exit(code);
