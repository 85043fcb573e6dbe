import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Command, Option } from 'commander';
import { printJson, printTable } from '../output.ts';
import { apiFor, globals, positiveInt, result } from './context.ts';
import { describeRun } from './watch.ts';

interface Reconciliation {
  run_id: string;
  status: string;
  balanced: boolean;
  totals: Record<string, number>;
  custodians: Array<
    Record<string, unknown> & {
      custodian: string;
      unit_kind: string;
      email?: string | null;
      custodian_name?: string | null;
      custodian_email?: string | null;
      exceptions: Array<Record<string, string>>;
    }
  >;
}

const CATEGORIES = ['listed', 'collected', 'unchanged', 'excluded', 'not_present', 'failed'] as const;

export function registerRunCommands(program: Command): void {
  const runs = program.command('runs').description("a collection's runs and their reconciliation");
  runs
    .command('list')
    .description("a collection's runs, newest first")
    .argument('<collection>', 'collection id')
    .option('--limit <n>', 'at most this many', positiveInt, 50)
    .action(async (id: string, opts: { limit: number }, cmd: Command) => {
      const rows = await apiFor(cmd).listRuns(id, opts.limit);
      if (globals(cmd).json) return printJson(rows);
      printTable(
        rows.map((r) => ({
          id: r.run_id,
          status: r.status,
          trigger: r.trigger,
          started: r.started_datetime,
          finished: r.finished_datetime,
          listed: r.counters.listed,
          collected: r.counters.collected,
          unchanged: r.counters.unchanged,
          excluded: r.counters.excluded ?? '-',
          not_present: r.counters.not_present ?? '-',
          failed: r.counters.failed,
          errors: r.error_count,
        })),
        [
          'id',
          'status',
          'trigger',
          'started',
          'finished',
          'listed',
          'collected',
          'unchanged',
          'excluded',
          'not_present',
          'failed',
          'errors',
        ],
      );
    });
  runs
    .command('show')
    .description('one run: status, counts and the first errors')
    .argument('<collection>', 'collection id')
    .argument('<run>', 'run id')
    .action(async (id: string, runId: string, _opts, cmd: Command) => {
      const run = await apiFor(cmd).getRun(id, runId);
      if (globals(cmd).json) return printJson(run);
      const lines = [
        describeRun(run),
        `  started ${run.started_datetime ?? '-'}, finished ${run.finished_datetime ?? '-'}`,
      ];
      if (run.error) lines.push(`  error: ${run.error}`);
      for (const e of run.errors) lines.push(`  ${e.kind ?? 'item'} ${e.source_id ?? '-'}: ${e.reason}`);
      if (run.errors_truncated)
        lines.push(`  … more errors: see \`custody runs reconciliation ${id} ${runId}\` or the manifest`);
      result(lines.join('\n'));
    });
  runs
    .command('reconciliation')
    .description(
      'what the run found per custodian, what it collected, and why anything was not (--csv for a spreadsheet)',
    )
    .argument('<collection>', 'collection id')
    .argument('<run>', 'run id')
    .option('--csv', 'print the CSV export (one row per custodian)')
    .addOption(
      new Option('--rows <rows>', 'with --csv: one row per custodian or per exception')
        .choices(['custodians', 'exceptions'])
        .default('custodians'),
    )
    .action(
      async (id: string, runId: string, opts: { csv?: boolean; rows: 'custodians' | 'exceptions' }, cmd: Command) => {
        const res = await apiFor(cmd).reconciliation(id, runId, opts.csv ? opts.rows : undefined);
        if (opts.csv)
          return void (await pipeline(
            Readable.fromWeb(res.body as import('node:stream/web').ReadableStream),
            process.stdout,
            { end: false },
          ));
        const report = (await res.json()) as Reconciliation;
        if (globals(cmd).json) return printJson(report);
        result(`run ${report.run_id} ${report.status}: ${report.balanced ? 'balanced' : 'NOT balanced'}`);
        printTable(
          [
            ...report.custodians.map((c) => ({
              custodian: c.custodian_name || c.custodian_email || c.email || c.custodian,
              kind: c.unit_kind,
              ...pick(c),
            })),
            { custodian: 'TOTAL', kind: '', ...pick(report.totals) },
          ],
          ['custodian', 'kind', ...CATEGORIES],
        );
        const exceptions = report.custodians.flatMap((c) =>
          c.exceptions.map((e) => ({ custodian: c.custodian_name || c.email || c.custodian, ...e })),
        );
        if (exceptions.length > 0) {
          result(`\nexceptions (${exceptions.length}):`);
          printTable(exceptions, ['custodian', 'outcome', 'kind', 'name', 'reason']);
        }
      },
    );
}

function pick(counts: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(CATEGORIES.map((k) => [k, counts[k]]));
}
