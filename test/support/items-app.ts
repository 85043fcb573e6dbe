import type { Connector } from '../../src/connectors/types.ts';
import type { AppContext } from '../../src/context.ts';
import type { SyncEngine } from '../../src/sync/engine.ts';
import { startTestApp, type Call } from './app.ts';
import type { TestDatabase } from './databases.ts';

export interface ItemsApp {
  url: string;
  ctx: AppContext;
  engine: SyncEngine;
  token(account: string): Promise<string>;
  call: Call;
  close(): Promise<void>;
}

/** The real runtime on 127.0.0.1:0 with the given connectors and no background workers: the test executes runs. */
export async function startItemsApp(database: TestDatabase, connectors: Connector[]): Promise<ItemsApp> {
  const t = await startTestApp({ database, connectors: () => connectors, workers: false, env: { WORKERS: 'none' } });
  return {
    url: t.url,
    ctx: t.runtime.ctx,
    engine: t.runtime.engine,
    token: (account) => t.token(account),
    call: t.call,
    close: () => t.close(),
  };
}
