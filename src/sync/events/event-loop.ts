import type { Logger } from '../../connectors/types.ts';
import type { EventDispatcher } from './provider-events.ts';
import type { SubscriptionManager } from './subscription-manager.ts';

export interface EventLoopOptions {
  dispatcher: EventDispatcher;
  subscriptions: SubscriptionManager;
  log: Logger;
  /** How often the inbox is read and ripe marks become runs. Default 1 s. */
  dispatchMs?: number;
  /** How often subscriptions are reconciled, renewed and re-created. Default 60 s. */
  subscriptionsMs?: number;
}

/** The background half of provider events, in processes that run workers. Each timer never overlaps itself. */
export function createEventLoop(opts: EventLoopOptions) {
  const timers: NodeJS.Timeout[] = [];
  const inFlight = new Set<Promise<unknown>>();
  const every = (ms: number, name: string, fn: () => Promise<unknown>) => {
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      const p = fn()
        .catch((err: unknown) => opts.log.error({ err }, `${name} failed`))
        .finally(() => {
          busy = false;
          inFlight.delete(p);
        });
      inFlight.add(p);
    }, ms);
    timer.unref();
    timers.push(timer);
  };
  return {
    start() {
      if (timers.length > 0) return;
      every(opts.dispatchMs ?? 1000, 'provider event dispatch', () => opts.dispatcher.tick());
      every(opts.subscriptionsMs ?? 60_000, 'change subscription pass', () => opts.subscriptions.tick());
    },
    async stop() {
      for (const t of timers.splice(0)) clearInterval(t);
      await Promise.all(inFlight);
    },
  };
}
