/**
 * Every job the engine runs, in one place. Both queues (in-process and graphile-worker) execute exactly these
 * handlers; `checkHandlers` makes a process fail at boot when a job has no handler or a name is given twice.
 */
export const JOB_NAMES = [
  'custody.run',
  'custody.unit',
  'custody.schedule',
  'custody.sweep',
  'custody.export',
] as const;
export type JobName = (typeof JOB_NAMES)[number];

export interface JobPayloads {
  /** Execute (or resume) a queued run: the engine claims it itself, so a duplicate delivery is harmless. */
  'custody.run': { run_id: string };
  /** Execute (or take over) one unit of a fanned-out run: claimed with a compare-and-swap on the unit's lease. */
  'custody.unit': { run_id: string; unit_key: string };
  /** A collection's re-run (auto/arch) or retry (failed) is due: queue it when it still is. */
  'custody.schedule': { collection_id: string };
  /** Safety net: repair collections left without their run, requeue runs whose worker died, queue due schedules. */
  'custody.sweep': Record<string, never>;
  /** Write (or restart) an export's package: claimed with a compare-and-swap on its lease (export/runner.ts). */
  'custody.export': { export_id: string };
}

export type JobHandlers = { [K in JobName]: (payload: JobPayloads[K]) => Promise<void> };

export class JobRegistryError extends Error {
  override name = 'JobRegistryError';
}

/** Handlers given as a list of [name, handler]: a name missing or given twice stops the process at boot. */
export function checkHandlers(
  entries: ReadonlyArray<readonly [string, (payload: never) => Promise<void>]>,
): JobHandlers {
  const seen = new Map<string, (payload: never) => Promise<void>>();
  for (const [name, handler] of entries) {
    if (!(JOB_NAMES as readonly string[]).includes(name))
      throw new JobRegistryError(`job "${name}" is not a registered job`);
    if (seen.has(name)) throw new JobRegistryError(`job "${name}" has two handlers`);
    seen.set(name, handler);
  }
  const missing = JOB_NAMES.filter((n) => !seen.has(n));
  if (missing.length > 0)
    throw new JobRegistryError(
      `no handler for job${missing.length > 1 ? 's' : ''} ${missing.map((n) => `"${n}"`).join(', ')}`,
    );
  return Object.fromEntries(seen) as unknown as JobHandlers;
}

/** A unit job's id where one string names a job (the in-process executor, the sweep): `unit:<run_id>:<unit_key>`. */
export function unitJobId(runId: string, unitKey: string): string {
  return `unit:${runId}:${unitKey}`;
}

/** An export job's id where one string names a job: `export:<export_id>`. */
export function exportJobId(exportId: string): string {
  return `export:${exportId}`;
}

export function parseExportJobId(id: string): string | undefined {
  return id.startsWith('export:') ? id.slice('export:'.length) : undefined;
}

export function parseUnitJobId(id: string): { run_id: string; unit_key: string } | undefined {
  const m = /^unit:([^:]+):(.+)$/s.exec(id);
  return m ? { run_id: m[1], unit_key: m[2] } : undefined;
}
