import os from 'node:os';
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { ZOOM_BUDGET, ZOOM_RETRY } from '../src/connectors/zoom/index.ts';
import { zoomQuirks } from '../src/connectors/zoom/quirks.ts';
import { createBudgetBackend } from '../src/provider/budget-backend.ts';
import { ProviderHttp } from '../src/provider/provider-http.ts';
import { ProviderBudgets } from '../src/provider/budget-registry.ts';
import type { Budget } from '../src/provider/shared-budget.ts';
import { migrate, openDatabase } from '../src/store/db.ts';
import { ProviderBudgetRepo } from '../src/store/provider-budgets.ts';

interface Leg {
  /** Undefined: nothing kept between runs (a credential never used before). */
  rates?: ProviderBudgetRepo;
  learn: boolean;
}

/**
 * One run's worth of traffic against a Zoom simulator that limits the account to `limit` requests/s (every
 * category), with the connector's default budget (48/s, 16 in flight at first): 16 request loops for `seconds`, from the first
 * request on (the start, before anything is known of the limit, is measured too). Answers the achieved rate as a
 * share of the limit and the share of requests answered 429.
 */
async function againstLimit(limit: number, seconds: number, leg: Leg): Promise<string> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(import.meta.dirname, 'zoom-sandbox-child.ts'), String(limit)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const budgets = new ProviderBudgets({
    backend: createBudgetBackend({ kind: 'memory' }),
    rates: leg.rates,
    learn: leg.learn,
  });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`sandbox exited ${code}`)));
    });
    const sb = JSON.parse(line) as { apiUrl: string; token: string };
    const token = sb.token;
    const inner = budgets.get('conf:bench', ZOOM_BUDGET);
    const counts = { ok: 0, throttled: 0 };
    // Counts every answer the budget is told about: successes and refusals, retried or not.
    const budget: Budget = {
      acquire: (cost, signal) => inner.acquire(cost, signal),
      pause: (until) => inner.pause(until),
      observe(response) {
        if (response.status === 429) counts.throttled += 1;
        else if (response.status < 300) counts.ok += 1;
        inner.observe(response);
      },
    };
    const ac = new AbortController();
    const http = new ProviderHttp({
      budget,
      retry: ZOOM_RETRY,
      quirks: zoomQuirks,
      auth: { token: async () => token, refresh: async () => token },
      userAgent: 'custody-bench',
      signal: ac.signal,
    });
    const startRate = (await leg.rates?.get('conf:bench'))?.rate ?? ZOOM_BUDGET.ratePerSecond;
    const started = performance.now();
    const loops = Array.from({ length: ZOOM_BUDGET.startConcurrency ?? ZOOM_BUDGET.concurrency }, async () => {
      while (!ac.signal.aborted) await http.json(`${sb.apiUrl}/users?page_size=5`).catch(() => undefined);
    });
    await new Promise((r) => setTimeout(r, seconds * 1000));
    ac.abort();
    await Promise.all(loops);
    const elapsed = (performance.now() - started) / 1000;
    const achieved = counts.ok / elapsed;
    const total = counts.ok + counts.throttled;
    return (
      `${((100 * achieved) / limit).toFixed(1).padStart(5)} % of the limit (${achieved.toFixed(1)} req/s), ` +
      `429: ${((100 * counts.throttled) / Math.max(1, total)).toFixed(2)} % (${counts.throttled} of ${total}); ` +
      `rate ${startRate.toFixed(1)}/s at the start, ${inner.rate.toFixed(1)}/s at the end`
    );
  } finally {
    await budgets.close();
    child.kill('SIGTERM');
  }
}

/**
 * `npm run bench -- budget`: per limit (20/s, 60/s), side by side: the configured default without learning (the
 * baseline), the learned budget on a credential never used before, and the next run of that credential (the
 * learned rate kept in provider_budgets, as across runs). Goal: at least 90 % of the limit and at most 1 % of 429s.
 * The machine's load is printed with them: the simulator's own stalls on a busy machine bunch requests.
 */
export async function benchBudget(scale: number): Promise<Record<string, string>> {
  const seconds = Math.max(5, Math.round(60 * scale));
  const out: Record<string, string> = {
    'budget: load average at start': os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' '),
  };
  for (const limit of [20, 60]) {
    const db = openDatabase({});
    await migrate(db);
    try {
      const rates = new ProviderBudgetRepo(db);
      out[`budget @ ${limit}/s, ${seconds} s, fixed default (baseline)`] = await againstLimit(limit, seconds, {
        learn: false,
      });
      out[`budget @ ${limit}/s, ${seconds} s, learned, first run    `] = await againstLimit(limit, seconds, {
        rates,
        learn: true,
      });
      out[`budget @ ${limit}/s, ${seconds} s, learned, next run     `] = await againstLimit(limit, seconds, {
        rates,
        learn: true,
      });
    } finally {
      await db.destroy();
    }
  }
  out['budget: load average at end'] = os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  return out;
}
