import { ZOOM_BUDGET, ZOOM_RETRY } from '../src/connectors/zoom/index.ts';
import { zoomQuirks } from '../src/connectors/zoom/quirks.ts';
import { createBudgetBackend } from '../src/provider/budget-backend.ts';
import { ProviderHttp } from '../src/provider/provider-http.ts';
import { ProviderBudgets, type Budget } from '../src/provider/shared-budget.ts';
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';

/**
 * The learned budget against a Zoom simulator that limits the account to `limit` requests/s (every category),
 * with the connector's default budget (48/s, 8 in flight) as the starting point: 8 request loops run for
 * `seconds`, as a run's units would. Prints the achieved rate as a share of the limit and the share of 429s.
 */
async function againstLimit(limit: number, seconds: number): Promise<Record<string, string>> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'zoom-sandbox-child.ts'), String(limit)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const budgets = new ProviderBudgets({ backend: createBudgetBackend({ kind: 'memory' }) });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: child.stdout! }).once('line', resolve);
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
    const http = new ProviderHttp({ budget, retry: ZOOM_RETRY, quirks: zoomQuirks, auth: { token: async () => token, refresh: async () => token }, userAgent: 'custody-bench', signal: ac.signal });
    const started = performance.now();
    const loops = Array.from({ length: ZOOM_BUDGET.concurrency }, async () => {
      while (!ac.signal.aborted) await http.json(`${sb.apiUrl}/users?page_size=5`).catch(() => undefined);
    });
    await new Promise((r) => setTimeout(r, seconds * 1000));
    ac.abort();
    await Promise.all(loops);
    const elapsed = (performance.now() - started) / 1000;
    const achieved = counts.ok / elapsed;
    const total = counts.ok + counts.throttled;
    return {
      [`budget @ ${limit}/s`]: `${achieved.toFixed(1)} req/s answered = ${((100 * achieved) / limit).toFixed(1)} % of the limit; ${counts.throttled} of ${total} requests answered 429 = ${((100 * counts.throttled) / Math.max(1, total)).toFixed(2)} %; learned rate ${inner.rate.toFixed(1)}/s (${seconds} s, start ${ZOOM_BUDGET.ratePerSecond}/s)`,
    };
  } finally {
    await budgets.close();
    child.kill('SIGTERM');
  }
}

export async function benchBudget(scale: number): Promise<Record<string, string>> {
  const seconds = Math.max(5, Math.round(60 * scale));
  return { ...(await againstLimit(20, seconds)), ...(await againstLimit(60, seconds)) };
}
