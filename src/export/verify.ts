import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { JWK } from 'jose';
import yauzl from 'yauzl';
import { verifyChain, type AuditView } from '../domain/audit-chain.ts';
import { BOM, NEWLINE, QUOTE, SEPARATOR } from './dat.ts';
import { verifyDetached } from './jws.ts';

export type VerifyResult = { ok: true; files: number; documents: number } | { ok: false; problem: string };

const KEPT = new Set(['manifest.json', 'manifest.jws', 'DATA/custody.dat', 'audit.jsonl']);

interface Scanned {
  files: Map<string, { size: number; sha256: string }>;
  kept: Map<string, Buffer>;
}

async function hashStream(stream: Readable, keep: boolean): Promise<{ size: number; sha256: string; bytes?: Buffer }> {
  const sha = crypto.createHash('sha256');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of stream as AsyncIterable<Buffer>) {
    sha.update(c);
    size += c.length;
    if (keep) chunks.push(c);
  }
  return { size, sha256: sha.digest('hex'), ...(keep && { bytes: Buffer.concat(chunks) }) };
}

async function scanFolder(root: string): Promise<Scanned> {
  const out: Scanned = { files: new Map(), kept: new Map() };
  const walk = async (dir: string) => {
    for (const e of await fs.promises.readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) await walk(full);
      else {
        const rel = path.relative(root, full).split(path.sep).join('/');
        const h = await hashStream(fs.createReadStream(full), KEPT.has(rel));
        out.files.set(rel, { size: h.size, sha256: h.sha256 });
        if (h.bytes) out.kept.set(rel, h.bytes);
      }
    }
  };
  await walk(root);
  return out;
}

function scanZip(file: string): Promise<Scanned> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true, autoClose: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('not a zip file'));
      const out: Scanned = { files: new Map(), kept: new Map() };
      zip.on('error', reject);
      zip.on('end', () => resolve(out));
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith('/')) return zip.readEntry();
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error(`cannot read ${entry.fileName}`));
          hashStream(stream, KEPT.has(entry.fileName)).then((h) => {
            out.files.set(entry.fileName, { size: h.size, sha256: h.sha256 });
            if (h.bytes) out.kept.set(entry.fileName, h.bytes);
            zip.readEntry();
          }, reject);
        });
      });
      zip.readEntry();
    });
  });
}

/** Parses the load file (issue 24 delimiters) into records of field -> value. */
export function parseDat(bytes: Buffer): Array<Record<string, string>> {
  let text = bytes.toString('utf8');
  if (!text.startsWith(BOM)) throw new Error('DATA/custody.dat does not start with a UTF-8 BOM');
  text = text.slice(1);
  const lines = text.split('\r\n');
  if (lines.pop() !== '') throw new Error('DATA/custody.dat does not end with CRLF');
  const parse = (line: string) => {
    const values: string[] = [];
    let i = 0;
    while (i < line.length) {
      if (line[i] !== QUOTE) throw new Error('a field of DATA/custody.dat is not wrapped in þ');
      let v = '';
      i += 1;
      for (;;) {
        if (i >= line.length) throw new Error('a field of DATA/custody.dat is not closed');
        if (line[i] === QUOTE) {
          if (line[i + 1] === QUOTE) {
            v += QUOTE;
            i += 2;
            continue;
          }
          i += 1;
          break;
        }
        v += line[i];
        i += 1;
      }
      values.push(v.replaceAll(NEWLINE, '\n'));
      if (i < line.length) {
        if (line[i] !== SEPARATOR) throw new Error('fields of DATA/custody.dat are not separated by U+0014');
        i += 1;
      }
    }
    return values;
  };
  const [head, ...rows] = lines.map(parse);
  if (!head) throw new Error('DATA/custody.dat has no header record');
  return rows.map((r) => {
    if (r.length !== head.length)
      throw new Error('a record of DATA/custody.dat does not have as many fields as the header');
    return Object.fromEntries(head.map((h, k) => [h, r[k]]));
  });
}

interface Manifest {
  documents: number;
  audit_head: { seq: number; hash: string };
  files: Array<{ path: string; size: number; sha256: string }>;
}

/**
 * Checks a package (ZIP or unpacked folder) offline: the signature over manifest.json with the key its `kid` names in
 * `jwks` (never a key from the package), every listed file's size and SHA-256, that nothing unlisted is there, the
 * load file's paths and natives' hashes, and the audit chain up to the signed head.
 */
export async function verifyPackage(target: string, jwks: { keys: JWK[] }): Promise<VerifyResult> {
  const fail = (problem: string): VerifyResult => ({ ok: false, problem });
  let scanned: Scanned;
  try {
    scanned = (await fs.promises.stat(target)).isDirectory() ? await scanFolder(target) : await scanZip(target);
  } catch (err) {
    return fail(`cannot read ${target}: ${(err as Error).message}`);
  }
  const manifestBytes = scanned.kept.get('manifest.json');
  const jws = scanned.kept.get('manifest.jws');
  if (!manifestBytes) return fail('manifest.json is missing');
  if (!jws) return fail('manifest.jws is missing');
  const sig = await verifyDetached(jws.toString('ascii'), manifestBytes, jwks);
  if (!sig.ok) return fail(sig.reason);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(manifestBytes.toString('utf8')) as Manifest;
  } catch {
    return fail('manifest.json is not JSON');
  }
  const listed = new Map(manifest.files.map((f) => [f.path, f]));
  for (const f of manifest.files) {
    const got = scanned.files.get(f.path);
    if (!got) return fail(`${f.path} is listed in the manifest but missing`);
    if (got.size !== f.size) return fail(`${f.path}: size ${got.size}, the manifest says ${f.size}`);
    if (got.sha256 !== f.sha256) return fail(`${f.path}: SHA-256 differs from the manifest`);
  }
  for (const p of scanned.files.keys())
    if (p !== 'manifest.json' && p !== 'manifest.jws' && !listed.has(p))
      return fail(`${p} is not listed in the manifest`);

  const dat = scanned.kept.get('DATA/custody.dat');
  if (!dat) return fail('DATA/custody.dat is missing');
  let records: Array<Record<string, string>>;
  try {
    records = parseDat(dat);
  } catch (err) {
    return fail((err as Error).message);
  }
  if (records.length !== manifest.documents)
    return fail(`the load file has ${records.length} documents, the manifest says ${manifest.documents}`);
  for (const r of records) {
    if (r.NATIVE_PATH) {
      const f = scanned.files.get(r.NATIVE_PATH);
      if (!f) return fail(`${r.DOCID}: NATIVE_PATH ${r.NATIVE_PATH} does not exist`);
      if (f.sha256 !== r.SHA256) return fail(`${r.DOCID}: the native's SHA-256 differs from its SHA256 field`);
    }
    if (r.TEXT_PATH && !scanned.files.has(r.TEXT_PATH))
      return fail(`${r.DOCID}: TEXT_PATH ${r.TEXT_PATH} does not exist`);
  }

  const auditBytes = scanned.kept.get('audit.jsonl');
  if (!auditBytes) return fail('audit.jsonl is missing');
  let entries: AuditView[];
  try {
    entries = auditBytes
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as AuditView);
  } catch {
    return fail('audit.jsonl is not JSON lines');
  }
  const broken = verifyChain(
    entries,
    manifest.audit_head.seq > 0 ? [{ ...manifest.audit_head, what: 'the manifest' }] : [],
  );
  if (broken) return fail(`audit chain: ${broken.reason}`);
  if (entries.length !== manifest.audit_head.seq)
    return fail('audit.jsonl goes beyond the audit head the manifest signed');
  return { ok: true, files: manifest.files.length, documents: manifest.documents };
}
