import crypto from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import yazl from 'yazl';
import type { BlobStore } from '../blobs/types.ts';
import type { DocumentReader } from '../search/index.ts';
import { extractContentText } from '../search/index.ts';
import { AuditRepo } from '../store/audit.ts';
import type { Database } from '../store/db.ts';
import { loadReconciliation } from '../read/reconciliation-report.ts';
import { chatJson, chatText, fromTo, isoOrNull } from './chat.ts';
import { datFile, type DatRecord } from './dat.ts';
import { useNativeCrc32 } from './fast-crc32.ts';
import { signDetached } from './jws.ts';
import type { SigningKeys } from './keys.ts';
import { rsmfStream } from './rsmf.ts';
import { extensionOf as extOf, folderOf, planExport, type ExportOptions, type PlannedDoc } from './selection.ts';

export interface PackageDeps {
  db: Database;
  blobs: BlobStore;
  documents: DocumentReader;
  keys: SigningKeys;
}

export interface PackageJob {
  id: string;
  collection_id: string;
  created_at: string;
  options: ExportOptions;
}

export interface PackageHooks {
  signal: AbortSignal;
  progress(p: { documents_done: number; documents_total: number; bytes: number }): void;
  /** Each chunk written to the package: progress for the lease's watchdog (sync/execution/lease.ts). */
  alive?(): void;
}

export interface ExportCounts {
  documents: number;
  natives: number;
  texts: number;
  families: number;
  duplicates_suppressed: number;
}

export interface PackageResult {
  sha256: string;
  size: number;
  counts: ExportCounts;
  auditHead: { seq: number; hash: string };
}

export interface ListedFile {
  path: string;
  size: number;
  sha256: string;
}

useNativeCrc32();

const ZIP_TIME = new Date('2000-01-01T00:00:00Z');
const TEXT_KINDS_FROM_RECORD = new Set(['ai_meeting_notes']);

function extensionOf(doc: PlannedDoc): string {
  if (doc.chat) return doc.kind === 'rsmf' ? 'rsmf' : 'json';
  return extOf(doc.item?.name);
}

function fileTypeOf(metadata: string): string | null {
  try {
    const v = (JSON.parse(metadata) as { file_type?: unknown }).file_type;
    return typeof v === 'string' ? v : null;
  } catch {
    return null;
  }
}

/**
 * Streams an export package (issue 24 layout) into the blob store: natives straight from their blobs, hashed on the
 * way; texts, chat documents and the load file one at a time; then audit.jsonl, manifest.json and manifest.jws.
 * Entries are produced one after another as the ZIP consumes them, so memory holds one text or chat file at most.
 */
export async function writePackage(deps: PackageDeps, job: PackageJob, hooks: PackageHooks): Promise<PackageResult> {
  const plan = await planExport(deps.db, job.collection_id, job.options);
  const collection = await deps.db
    .selectFrom('collections')
    .select(['sync_filters'])
    .where('id', '=', job.collection_id)
    .executeTakeFirst();
  const audit = await new AuditRepo(deps.db).chain(`collection:${job.collection_id}`);
  const head = audit[audit.length - 1];
  const auditHead = { seq: head?.seq ?? 0, hash: head?.hash ?? '0'.repeat(64) };

  const writer = await deps.blobs.writer();
  const zip = new yazl.ZipFile();
  const consumed = (async () => {
    for await (const chunk of zip.outputStream as AsyncIterable<Buffer>) {
      if (hooks.signal.aborted) throw hooks.signal.reason ?? new Error('export cancelled');
      await writer.write(chunk);
      hooks.alive?.();
    }
  })();
  consumed.catch(() => undefined);
  const files: ListedFile[] = [];
  /** Adds one entry and waits until the ZIP has consumed it: its size and SHA-256 are then known. */
  const add = (
    path: string,
    source: () => Promise<Readable> | Readable,
    compress: boolean,
    withMd5 = false,
  ): Promise<ListedFile & { md5: string }> =>
    new Promise((resolve, reject) => {
      const sha = crypto.createHash('sha256');
      const md5 = withMd5 ? crypto.createHash('md5') : null;
      let size = 0;
      const tap = new PassThrough();
      tap.on('data', (c: Buffer) => {
        sha.update(c);
        md5?.update(c);
        size += c.length;
      });
      tap.on('end', () => {
        const f = { path, size, sha256: sha.digest('hex') };
        files.push(f);
        resolve({ ...f, md5: md5?.digest('hex') ?? '' });
      });
      tap.on('error', reject);
      zip.addReadStreamLazy(path, { mtime: ZIP_TIME, compress }, (cb) => {
        Promise.resolve()
          .then(source)
          .then(
            (s) => {
              s.on('error', (err) => tap.destroy(err));
              cb(null, s.pipe(tap));
            },
            (err: Error) => {
              reject(err);
              cb(err, undefined as never);
            },
          );
      });
      consumed.catch(reject);
    });
  const buffer = (b: Buffer) => () => Readable.from([b]);

  try {
    const records: DatRecord[] = [];
    const counts: ExportCounts = {
      documents: plan.docs.length,
      natives: 0,
      texts: 0,
      families: plan.families,
      duplicates_suppressed: plan.duplicatesSuppressed,
    };
    for (const doc of plan.docs) {
      if (hooks.signal.aborted) throw hooks.signal.reason ?? new Error('export cancelled');
      const folder = folderOf(doc.n);
      const it = doc.item;
      let native: (ListedFile & { md5: string }) | null = null;
      let md5 = '';
      if (doc.chat) {
        const g = doc.chat;
        const source =
          doc.kind === 'rsmf'
            ? () =>
                rsmfStream(g, {
                  exportId: job.id,
                  custodian: doc.custodian.form,
                  open: (i) => deps.blobs.read(i.sha256!),
                })
            : buffer(chatJson(g));
        native = await add(`NATIVES/${folder}/${doc.docid}.${extensionOf(doc)}`, source, false, true);
        md5 = native.md5;
      } else if (it?.sha256 && it.content_state === 'stored') {
        native = await add(
          `NATIVES/${folder}/${doc.docid}.${extensionOf(doc)}`,
          () => deps.blobs.read(it.sha256!),
          false,
        );
        if (native.sha256 !== it.sha256) throw new Error(`item ${it.id}: stored content does not match its SHA-256`);
        md5 = it.md5 ?? '';
      }
      if (native) counts.natives += 1;
      let text: string | null = null;
      if (doc.chat) text = chatText(doc.chat);
      else if (it && TEXT_KINDS_FROM_RECORD.has(it.kind)) text = it.text;
      else if (it?.sha256 && it.content_state === 'stored') {
        text = await extractContentText(
          deps.blobs,
          {
            name: it.name,
            mime_type: it.mime_type,
            kind: it.kind,
            file_type: fileTypeOf(it.metadata),
            sha256: it.sha256,
            size: it.size,
          },
          { documents: deps.documents },
        ).catch(() => null);
      }
      let textPath = '';
      if (text && text.trim() !== '') {
        textPath = (await add(`TEXT/${folder}/${doc.docid}.txt`, buffer(Buffer.from(text, 'utf8')), true)).path;
        counts.texts += 1;
      }
      records.push(datRecord(doc, native, md5, textPath));
      hooks.progress({ documents_done: records.length, documents_total: plan.docs.length, bytes: writer.bytesWritten });
    }
    await add('DATA/custody.dat', buffer(datFile(records)), true);
    await add('audit.jsonl', buffer(Buffer.from(audit.map((e) => `${JSON.stringify(e)}\n`).join(''), 'utf8')), true);

    const runs = [];
    for (const runId of plan.runIds) {
      const run = await deps.db.selectFrom('runs').select(['id', 'status']).where('id', '=', runId).executeTakeFirst();
      if (!run) continue;
      const r = await loadReconciliation(deps.db, run);
      runs.push({ run_id: run.id, status: run.status, reconciliation: { balanced: r.balanced, totals: r.totals } });
    }
    const manifest = {
      format: 'custody-export/1',
      export_id: job.id,
      collection_id: job.collection_id,
      created_at: job.created_at,
      selection: job.options,
      sync_filters: collection?.sync_filters ? (JSON.parse(collection.sync_filters) as unknown) : null,
      runs,
      documents: plan.docs.length,
      audit_head: auditHead,
      files: [...files],
    };
    const manifestBytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8');
    await add('manifest.json', buffer(manifestBytes), true);
    const jws = await signDetached(manifestBytes, await deps.keys.active());
    await add('manifest.jws', buffer(Buffer.from(jws, 'ascii')), false);
    zip.end();
    await consumed;
    const committed = await writer.commit();
    return { sha256: committed.sha256, size: committed.size, counts, auditHead };
  } catch (err) {
    (zip.outputStream as unknown as Readable).destroy();
    await writer.abort();
    throw err;
  }
}

function providerHash(doc: PlannedDoc): string {
  const it = doc.item;
  return it?.provider_hash_value ? `${it.provider_hash_type ?? 'hash'}:${it.provider_hash_value}` : '';
}

function datRecord(doc: PlannedDoc, native: ListedFile | null, md5: string, textPath: string): DatRecord {
  const it = doc.item;
  const chat = doc.chat;
  // A chat document's people are its conversation-day's; a chat file's are its message's (its sender, the rest).
  const people = chat ? fromTo(chat) : doc.via ? fromTo(doc.via.group, doc.via.message.from) : { from: '', to: '' };
  const conversation = (chat ?? doc.via?.group)?.conversation;
  const sent = chat
    ? (chat.messages
        .map((m) => m.sent_at)
        .filter((t): t is string => t !== null)
        .sort()[0] ?? '')
    : '';
  return {
    DOCID: doc.docid,
    PARENT_DOCID: doc.parentDocid,
    BEGATTACH: doc.begAttach,
    ENDATTACH: doc.endAttach,
    CUSTODIAN: doc.custodian.form,
    CUSTODIAN_NAME: doc.custodian.name,
    CUSTODIAN_EMAIL: doc.custodian.email,
    ALL_CUSTODIANS: doc.allCustodians.join(';'),
    SOURCE: it?.kind === 'file' || it?.kind === 'folder' ? 'onedrive' : 'zoom',
    KIND: doc.kind,
    FILENAME: chat
      ? `${chat.conversation.name || chat.conversation.id} ${chat.day}.${doc.kind === 'rsmf' ? 'rsmf' : 'json'}`
      : (it?.name ?? ''),
    ORIGINAL_PATH: it?.path ?? '',
    FILE_SIZE: native ? String(native.size) : it?.size != null ? String(it.size) : '',
    MD5: md5,
    SHA256: native?.sha256 ?? '',
    PROVIDER_HASH: providerHash(doc),
    DATE_CREATED: isoOrNull(it?.created_datetime) ?? (chat ? sent : ''),
    DATE_MODIFIED: isoOrNull(it?.modified_datetime) ?? '',
    DATE_SENT: sent || (doc.via?.message.sent_at ?? ''),
    FROM: people.from,
    TO: people.to,
    CONVERSATION: conversation ? conversation.name || conversation.id : '',
    NATIVE_PATH: native?.path ?? '',
    TEXT_PATH: textPath,
    ITEM_ID: it?.id ?? '',
    RUN_ID: it?.run_id ?? (chat ? [...new Set(chat.items.map((i) => i.run_id))].join(';') : ''),
    COLLECTED_AT:
      isoOrNull(it?.collected_datetime) ??
      (chat
        ? (chat.items
            .map((i) => isoOrNull(i.collected_datetime) ?? '')
            .sort()
            .pop() ?? '')
        : ''),
  };
}
