import cliProgress from 'cli-progress';
import { EXIT } from '../errors.ts';
import type { CustodyApi, RunSummary } from './custody-api.ts';

const ACTIVE = new Set(['queued', 'running']);

export interface WatchOptions {
  intervalMs: number;
  /** Draw live bars (on stderr, only on a terminal). */
  bars: boolean;
}

/** One custodian's cumulative figures in the run (`run.progress`). */
interface Progress {
  listed: number;
  collected: number;
  bytes: number;
  failed: number;
}

/**
 * Follows a run to its end: the collection's latest run is polled for the status and the totals; per-custodian
 * progress comes from the collection's event stream (`run.progress`) when the server has one.
 */
export async function watchRun(
  api: CustodyApi,
  collectionId: string,
  runId: string,
  opts: WatchOptions,
): Promise<RunSummary> {
  const bars = opts.bars ? new Bars() : null;
  const stop = new AbortController();
  const streaming = bars
    ? followEvents(api, collectionId, runId, stop.signal, (who, p, label) => bars.custodian(who, p, label))
    : Promise.resolve();
  try {
    for (;;) {
      const run = (await api.getCollection(collectionId)).latest_run;
      if (run && run.run_id === runId) {
        bars?.total(run.counters);
        if (!ACTIVE.has(run.status)) return run;
      }
      await new Promise((resolve) => setTimeout(resolve, opts.intervalMs));
    }
  } finally {
    stop.abort();
    await streaming.catch(() => undefined);
    bars?.stop();
  }
}

/** 0 only for `succeeded`. */
export function exitCodeFor(status: string): number {
  if (status === 'succeeded') return EXIT.ok;
  if (status === 'completed_with_errors') return EXIT.runCompletedWithErrors;
  return EXIT.runFailed;
}

/**
 * A run in one line. Where the server reports the reconciliation's categories in the counters (`excluded`,
 * `not_present`), those are shown, in the reconciliation's order; else the older counters.
 */
export function describeRun(run: RunSummary): string {
  const c = run.counters;
  const counts =
    c.excluded !== undefined && c.not_present !== undefined
      ? `${c.listed} listed, ${c.collected} collected, ${c.unchanged} unchanged, ${c.excluded} excluded, ${c.not_present} not present, ${c.failed} failed`
      : `${c.listed} listed, ${c.collected} collected, ${c.unchanged} unchanged, ${c.skipped} skipped, ${c.failed} failed`;
  return `run ${run.run_id} ${run.status}: ${counts}, ${formatBytes(c.bytes)}, ${run.error_count} errors`;
}

export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

async function followEvents(
  api: CustodyApi,
  collectionId: string,
  runId: string,
  signal: AbortSignal,
  onProgress: (custodian: string, p: Progress, label: string) => void,
): Promise<void> {
  const res = await api.events(collectionId, signal);
  if (!res?.body) return;
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, '');
      const event = parseSse(block);
      if (event?.type !== 'run.progress') continue;
      const d = event.data as Progress & {
        run_id?: string;
        custodian?: string;
        custodian_name?: string | null;
        custodian_email?: string | null;
      };
      // The name where the server gives one (the id stays the key: two people may share a name)
      if (d.run_id === runId && d.custodian)
        onProgress(d.custodian, d, d.custodian_name || d.custodian_email || d.custodian);
    }
  }
}

/** One server-sent event block: `event:` names it, `data:` lines join into its JSON. */
export function parseSse(block: string): { type: string; data: unknown } | null {
  let type = 'message';
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line.startsWith('event:')) type = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  if (!data.length) return null;
  try {
    return { type, data: JSON.parse(data.join('\n')) };
  } catch {
    return null;
  }
}

class Bars {
  private readonly multi = new cliProgress.MultiBar(
    {
      format: ' {name} |{bar}| {collected}/{listed} items · {size} · {failed} failed',
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      barsize: 24,
    },
    cliProgress.Presets.shades_classic,
  );
  private readonly custodians = new Map<string, cliProgress.SingleBar>();
  private totals: cliProgress.SingleBar | null = null;

  total(c: Progress) {
    const payload = { name: 'all custodians'.padEnd(28), ...c, size: formatBytes(c.bytes) };
    if (!this.totals) this.totals = this.multi.create(Math.max(c.listed, 1), c.collected + c.failed, payload);
    else {
      this.totals.setTotal(Math.max(c.listed, 1));
      this.totals.update(c.collected + c.failed, payload);
    }
  }

  custodian(who: string, p: Progress, label: string) {
    const payload = { name: label.slice(0, 28).padEnd(28), ...p, size: formatBytes(p.bytes) };
    const bar = this.custodians.get(who);
    if (!bar) this.custodians.set(who, this.multi.create(Math.max(p.listed, 1), p.collected + p.failed, payload));
    else {
      bar.setTotal(Math.max(p.listed, 1));
      bar.update(p.collected + p.failed, payload);
    }
  }

  stop() {
    this.multi.stop();
    // the bars leave the cursor at the end of the last one: what follows starts on its own line
    process.stderr.write('\n');
  }
}
