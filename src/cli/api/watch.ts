import cliProgress from 'cli-progress';
import { EXIT } from '../errors.ts';
import type { CustodyApi, RunSummary } from './custody-api.ts';

const ACTIVE = new Set(['queued', 'running']);

export interface WatchOptions {
  intervalMs: number;
  /** Draw live bars (on stderr, only on a terminal). */
  bars: boolean;
}

/** One custodian's cumulative figures in the run (`run.progress`), or the run's counters. */
export interface Progress {
  listed: number;
  collected: number;
  bytes: number;
  failed: number;
  unchanged?: number;
  excluded?: number;
  not_present?: number;
  /** a unit's status (`run.progress`): `done`/`failed` once it is finished */
  status?: string;
}

/**
 * How far a bar is, out of `listed`: every listed piece that reached an outcome (collected, unchanged, excluded,
 * not present or failed: the reconciliation's categories), and all of it once the unit or run is finished.
 */
export function barValue(p: Progress, finished: boolean): { done: number; total: number } {
  const total = Math.max(p.listed, 1);
  if (finished) return { done: total, total };
  const done = p.collected + (p.unchanged ?? 0) + (p.excluded ?? 0) + (p.not_present ?? 0) + p.failed;
  return { done: Math.min(done, total), total };
}

const UNIT_ENDED = new Set(['done', 'failed', 'not_reached']);

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
        bars?.total(run.counters, !ACTIVE.has(run.status));
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
      format: ' {name} |{bar}| {done}/{listed} items · {collected} collected · {size} · {failed} failed',
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      barsize: 24,
    },
    cliProgress.Presets.shades_classic,
  );
  private readonly custodians = new Map<string, cliProgress.SingleBar>();
  private totals: cliProgress.SingleBar | null = null;

  total(c: Progress, finished: boolean) {
    this.totals = this.draw(this.totals, 'all custodians', c, finished);
  }

  custodian(who: string, p: Progress, label: string) {
    this.custodians.set(who, this.draw(this.custodians.get(who), label, p, UNIT_ENDED.has(p.status ?? '')));
  }

  private draw(bar: cliProgress.SingleBar | null | undefined, label: string, p: Progress, finished: boolean) {
    const { done, total } = barValue(p, finished);
    const payload = { name: label.slice(0, 28).padEnd(28), ...p, done: p.listed, size: formatBytes(p.bytes) };
    if (!finished) payload.done = done;
    if (!bar) return this.multi.create(total, done, payload);
    bar.setTotal(total);
    bar.update(done, payload);
    return bar;
  }

  stop() {
    this.multi.stop();
    // the bars leave the cursor at the end of the last one: what follows starts on its own line
    process.stderr.write('\n');
  }
}
