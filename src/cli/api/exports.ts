import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import { Option } from 'commander';
import cliProgress from 'cli-progress';
import { verifyPackage } from '../../export/verify.ts';
import { CliError, EXIT } from '../errors.ts';
import { printJson, printTable } from '../output.ts';
import type { CustodyApi } from './custody-api.ts';
import { formatBytes } from './watch.ts';

interface ExportView {
  export_id: string;
  status: string;
  created_at: string;
  finished_at: string | null;
  counts: { documents: number; natives: number; texts: number; families: number; duplicates_suppressed: number } | null;
  bytes: number | null;
  sha256: string | null;
  error: string | null;
}

const enc = encodeURIComponent;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function download(api: CustodyApi, collectionId: string, exportId: string, out: string): Promise<number> {
  const res = await api.exportCall('GET', `/v1/collections/${enc(collectionId)}/exports/${enc(exportId)}/download`);
  const tmp = `${out}.partial`;
  await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), fs.createWriteStream(tmp));
  fs.renameSync(tmp, out);
  return fs.statSync(out).size;
}

/** JWKS from a file or an http(s) URL: the only place `custody verify` takes keys from. */
async function loadKeys(source: string): Promise<{ keys: never[] }> {
  const text = /^https?:\/\//.test(source) ? await (await fetch(source)).text() : fs.readFileSync(source, 'utf8');
  const parsed = JSON.parse(text) as { keys?: unknown };
  if (!Array.isArray(parsed.keys)) throw new CliError(`${source} is not a JWKS ({keys: [...]})`, EXIT.usage);
  return parsed as { keys: never[] };
}

export function registerExportCommands(
  program: Command,
  apiFor: (cmd: Command) => CustodyApi,
  isJson: (cmd: Command) => boolean,
  setExit: (code: number) => void,
): void {
  const exports = program.command('exports').description('export a collection as a signed production package');
  exports
    .command('create')
    .description('queue an export; with --wait follow it and, with --output, download the package')
    .argument('<collection>', 'collection id')
    .addOption(new Option('--chat-format <format>', 'chat documents').choices(['rsmf', 'json']).default('rsmf'))
    .addOption(
      new Option('--dedupe <scope>', 'suppress duplicate files')
        .choices(['none', 'custodian', 'global'])
        .default('none'),
    )
    .option('--custodian <id...>', 'only these custodians')
    .option('--kind <kind...>', 'only these kinds')
    .option('--wait', 'wait until the export ends (progress bar on a terminal)')
    .option('--output <file>', 'with --wait: write the package here')
    .action(
      async (
        collection: string,
        opts: {
          chatFormat: string;
          dedupe: string;
          custodian?: string[];
          kind?: string[];
          wait?: boolean;
          output?: string;
        },
        cmd: Command,
      ) => {
        const api = apiFor(cmd);
        const items = { ...(opts.custodian && { custodians: opts.custodian }), ...(opts.kind && { kinds: opts.kind }) };
        const res = await api.exportCall('POST', `/v1/collections/${enc(collection)}/exports`, {
          items,
          chat_format: opts.chatFormat,
          dedupe: opts.dedupe,
        });
        const created = (await res.json()) as { export_id: string; status: string };
        if (!opts.wait) {
          if (isJson(cmd)) printJson(created);
          else process.stdout.write(`${created.export_id}\n`);
          return;
        }
        const bar =
          !isJson(cmd) && process.stderr.isTTY
            ? new cliProgress.SingleBar(
                { format: 'export [{bar}] {value}/{total} documents', stream: process.stderr },
                cliProgress.Presets.shades_classic,
              )
            : undefined;
        bar?.start(1, 0);
        let view: ExportView;
        for (;;) {
          view = (await (
            await api.exportCall('GET', `/v1/collections/${enc(collection)}/exports/${enc(created.export_id)}`)
          ).json()) as ExportView;
          if (view.counts) bar?.setTotal(Math.max(1, view.counts.documents));
          if (!['queued', 'running'].includes(view.status)) break;
          await sleep(500);
        }
        if (view.counts) bar?.update(view.counts.documents);
        bar?.stop();
        if (view.status !== 'succeeded') {
          setExit(EXIT.error);
          if (isJson(cmd)) printJson(view);
          else process.stderr.write(`export ${view.export_id} ${view.status}${view.error ? `: ${view.error}` : ''}\n`);
          return;
        }
        if (opts.output) await download(api, collection, view.export_id, opts.output);
        if (isJson(cmd)) printJson({ ...view, ...(opts.output && { file: opts.output }) });
        else
          process.stdout.write(
            `export ${view.export_id} succeeded: ${view.counts?.documents ?? 0} documents, ${formatBytes(view.bytes ?? 0)}${opts.output ? ` -> ${opts.output}` : ''}\n`,
          );
      },
    );
  exports
    .command('list')
    .description("a collection's exports, newest first")
    .argument('<collection>', 'collection id')
    .action(async (collection: string, _opts: unknown, cmd: Command) => {
      const body = (await (
        await apiFor(cmd).exportCall('GET', `/v1/collections/${enc(collection)}/exports`)
      ).json()) as { items: ExportView[] };
      if (isJson(cmd)) return printJson(body.items);
      printTable(
        body.items.map((e) => ({
          id: e.export_id,
          status: e.status,
          created: e.created_at,
          documents: e.counts?.documents ?? '',
          size: e.bytes ?? '',
        })),
        ['id', 'status', 'created', 'documents', 'size'],
      );
    });
  exports
    .command('download')
    .description("download a succeeded export's package")
    .argument('<collection>', 'collection id')
    .argument('<export>', 'export id')
    .requiredOption('--output <file>', 'where to write the package')
    .action(async (collection: string, exportId: string, opts: { output: string }, cmd: Command) => {
      const size = await download(apiFor(cmd), collection, exportId, opts.output);
      if (isJson(cmd)) printJson({ file: opts.output, bytes: size });
      else process.stderr.write(`wrote ${opts.output} (${formatBytes(size)})\n`);
    });

  program
    .command('keys')
    .description("the installation's public signing keys")
    .command('export')
    .description('write the JWKS (GET /v1/signing-keys) to a file')
    .argument('<file>', 'where to write it')
    .action(async (file: string, _opts: unknown, cmd: Command) => {
      const api = apiFor(cmd);
      const res = await fetch(`${api.baseUrl}/v1/signing-keys`);
      if (!res.ok) throw new CliError(`GET /v1/signing-keys failed: ${res.status}`);
      const jwks = (await res.json()) as { keys: unknown[] };
      fs.writeFileSync(file, `${JSON.stringify(jwks, null, 2)}\n`);
      if (isJson(cmd)) printJson({ file, keys: jwks.keys.length });
      else process.stderr.write(`wrote ${file} (${jwks.keys.length} key${jwks.keys.length === 1 ? '' : 's'})\n`);
    });

  program
    .command('verify')
    .description('verify an export package offline: signature, file hashes, load file, audit chain')
    .argument('<package>', 'the package .zip or its unpacked folder')
    .option('--keys <jwks>', 'JWKS file or URL (custody keys export, GET /v1/signing-keys)')
    .action(async (pkg: string, opts: { keys?: string }, cmd: Command) => {
      if (!opts.keys)
        throw new CliError(
          '--keys <jwks file | URL> is required: the keys never come from the package itself',
          EXIT.usage,
        );
      const result = await verifyPackage(pkg, await loadKeys(opts.keys));
      if (isJson(cmd)) printJson(result);
      else if (result.ok) process.stdout.write(`verified: ${result.files} files, ${result.documents} documents\n`);
      else process.stderr.write(`not verified: ${result.problem}\n`);
      setExit(result.ok ? EXIT.ok : EXIT.error);
    });
}
