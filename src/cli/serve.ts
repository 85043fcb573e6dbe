import { sharedHashPool } from '../blobs/index.ts';
import type { Config } from '../config.ts';
import { createConnectors } from '../connectors/index.ts';
import { createLogger } from '../log.ts';
import { createRuntime } from '../runtime.ts';
import { startSandboxesIfUnconfigured } from './sandboxes.ts';

/** `custody serve` (API + in-process workers) and `custody worker` (workers only). Returns -1: keep running. */
export async function serve(config: Config, opts: { workers: boolean; api?: boolean }): Promise<number> {
  const log = createLogger(config.logLevel);
  const stopSandboxes = await startSandboxesIfUnconfigured(config, log);
  const runtime = await createRuntime(config, { log, connectors: createConnectors(config), workers: opts.workers });
  // A process that syncs content starts its hashing threads now rather than in the middle of its first large file.
  if (opts.workers) await sharedHashPool().warm();
  if (opts.api !== false) {
    await runtime.app.listen({ host: config.host, port: config.port });
    log.info(
      {
        url: config.publicUrl,
        docs: `${config.publicUrl}/docs`,
        database: config.databaseUrl ? 'postgresql' : 'sqlite',
        data_dir: config.dataDir,
      },
      'custody is listening',
    );
  } else {
    log.info({ database: config.databaseUrl ? 'postgresql' : 'sqlite' }, 'custody worker started');
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    // server.close() drops only the keep-alive sockets idle at that instant; one still answering would hold the exit for keepAliveTimeout (72 s).
    setInterval(() => runtime.app.server.closeIdleConnections(), 100).unref();
    await runtime.close();
    await stopSandboxes();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  return -1;
}
