// Content-addressed blob store on S3 (or an S3-compatible server): <prefix>blobs/<sha256>.
// A blob streams into <prefix>tmp/<time>-<uuid> through a multipart upload while it is hashed; on commit the stored
// temp object is checked against the hashes (size, and the ETag S3 derives from the MD5 of the bytes it received),
// then copied to its content key and the temp object deleted. A reader never sees a key whose bytes were not
// verified; a crash leaves only tmp/ objects and unfinished multipart uploads, which sweepTemp removes.
import { randomUUID, createHash } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
  UploadPartCopyCommand,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { createDigests, type Digests, type HashingOptions } from './hashing.ts';
import { PartMd5 } from './part-md5.ts';
import { assertSha256, BlobNotFoundError, type BlobRange, type BlobStore, type BlobWriter, type CommittedBlob, type HasherFactory } from './types.ts';

export interface S3BlobStoreOptions {
  bucket: string;
  /** Key prefix, e.g. `custody/`; a missing trailing slash is added. */
  prefix?: string;
  endpoint?: string;
  region?: string;
  forcePathStyle?: boolean;
  /** Only for tests and S3-compatible servers; production takes credentials from the AWS chain. */
  credentials?: S3ClientConfig['credentials'];
  /**
   * Bytes per multipart part (default 8 MiB, S3's minimum is 5 MiB) and parts in flight (default 4). Memory per
   * writer is about (queueSize + 2) x partSize; the largest blob is 10,000 x partSize (80 GB by default).
   */
  partSize?: number;
  queueSize?: number;
  hashing?: HashingOptions;
}

export interface S3BlobStore extends BlobStore {
  readonly client: S3Client;
  keyFor(sha256: string): string;
  /** Deletes temp objects and unfinished uploads a crash left, last touched more than `olderThanMs` ago. */
  sweepTemp(olderThanMs: number): Promise<number>;
}

const DEFAULT_PART = 8 * 1024 * 1024;
// CopyObject copies at most 5 GiB; larger objects are copied part by part.
const COPY_LIMIT = 5 * 1024 * 1024 * 1024;
const COPY_PART = 1024 * 1024 * 1024;
const PARTS = 'parts';

function errorName(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } };
  if (e.$metadata?.httpStatusCode === 404) return 'NotFound';
  return e.Code ?? e.name;
}

const isMissing = (error: unknown) => ['NotFound', 'NoSuchKey'].includes(errorName(error) ?? '');

type WriterState = 'open' | 'failed' | 'committed' | 'aborted';

interface StoreInternals {
  client: S3Client;
  bucket: string;
  keyFor(sha256: string): string;
  head(key: string): Promise<{ size: number; etag: string } | null>;
  remove(key: string): Promise<void>;
  settled(tempKey: string): void;
}

class S3BlobWriter implements BlobWriter {
  private state: WriterState = 'open';
  private busy = false;
  private written = 0;
  private readonly body = new PassThrough({ highWaterMark: 1024 * 1024 });
  private readonly upload: Upload;
  private readonly uploaded: Promise<unknown>;
  private failure: unknown;
  private readonly digests: Digests;

  constructor(
    private readonly store: StoreInternals,
    private readonly tempKey: string,
    private readonly partSize: number,
    queueSize: number,
    hashers: Record<string, HasherFactory>,
    hashing: HashingOptions | undefined,
  ) {
    this.digests = createDigests({ ...hashers, [PARTS]: PartMd5.factory(partSize) }, hashing);
    this.upload = new Upload({
      client: store.client,
      params: { Bucket: store.bucket, Key: tempKey, Body: this.body },
      partSize,
      queueSize,
    });
    this.uploaded = this.upload.done();
    this.uploaded.catch((error: unknown) => {
      this.failure ??= error;
      this.body.destroy();
    });
  }

  get bytesWritten(): number {
    return this.written;
  }

  async write(chunk: Uint8Array): Promise<void> {
    this.assertOpen();
    if (this.busy) throw new Error('BlobWriter.write called before the previous write finished');
    this.busy = true;
    try {
      if (this.failure) throw this.failure;
      // The upload keeps the chunk until its part is sent; a copy frees the caller to reuse its buffer.
      const accepted = this.body.write(Buffer.from(chunk));
      await Promise.all([this.digests.update(chunk), accepted ? undefined : this.drained()]);
      this.written += chunk.length;
    } catch (error) {
      this.state = 'failed';
      throw error;
    } finally {
      this.busy = false;
    }
  }

  private async drained(): Promise<void> {
    const failed = this.uploaded.then(() => undefined);
    await Promise.race([once(this.body, 'drain'), failed]);
    if (this.failure) throw this.failure;
  }

  async commit(): Promise<CommittedBlob> {
    this.assertOpen();
    if (this.busy) throw new Error('BlobWriter.commit called while a write is in progress');
    this.state = 'committed';
    try {
      this.body.end();
      const [digested] = await Promise.all([this.digests.finish(), this.uploaded]);
      const { [PARTS]: partsEtag, ...extra } = digested.extra ?? {};
      const blob: CommittedBlob = { sha256: digested.sha256, md5: digested.md5, size: digested.size };
      if (Object.keys(extra).length > 0) blob.extra = extra;
      await this.verify(blob, partsEtag);
      const finalKey = this.store.keyFor(blob.sha256);
      // Two writers of the same content may both copy; the bytes are identical, so the last copy changes nothing.
      if (!(await this.store.head(finalKey))) await copyObject(this.store, this.tempKey, finalKey, blob.size);
      await this.store.remove(this.tempKey);
      return blob;
    } catch (error) {
      this.digests.close();
      await this.upload.abort().catch(() => undefined);
      await this.store.remove(this.tempKey).catch(() => undefined);
      throw error;
    } finally {
      this.store.settled(this.tempKey);
    }
  }

  /**
   * The temp object must hold exactly the bytes hashed. S3's ETag is the MD5 of a single-request upload, or the
   * MD5 of the parts' MD5s with "-<parts>" for a multipart one; some servers (and SSE-KMS) answer another ETag,
   * in which case the object is read back and its SHA-256 compared.
   */
  private async verify(blob: CommittedBlob, partsEtag: string | undefined): Promise<void> {
    const stored = await this.store.head(this.tempKey);
    if (!stored) throw new Error(`uploaded object ${this.tempKey} is missing`);
    if (stored.size !== blob.size) throw new Error(`uploaded object has ${stored.size} bytes, ${blob.size} were written`);
    if (stored.etag === blob.md5 || (partsEtag !== undefined && stored.etag === partsEtag)) return;
    const response = await this.store.client.send(new GetObjectCommand({ Bucket: this.store.bucket, Key: this.tempKey }));
    const hash = createHash('sha256');
    for await (const chunk of response.Body as Readable) hash.update(chunk as Buffer);
    const sha256 = hash.digest('hex');
    if (sha256 !== blob.sha256) throw new Error(`uploaded object hashes to ${sha256}, the bytes written to ${blob.sha256}`);
  }

  async abort(): Promise<void> {
    if (this.state === 'committed' || this.state === 'aborted') return;
    this.state = 'aborted';
    this.digests.close();
    this.failure ??= new Error('aborted');
    this.body.destroy();
    await this.upload.abort().catch(() => undefined);
    await this.uploaded.catch(() => undefined);
    // A single-request upload may have finished before the abort.
    await this.store.remove(this.tempKey).catch(() => undefined);
    this.store.settled(this.tempKey);
  }

  private assertOpen(): void {
    if (this.state !== 'open') throw new Error(`BlobWriter is ${this.state}`);
  }
}

async function copyObject(store: StoreInternals, from: string, to: string, size: number): Promise<void> {
  const CopySource = `${store.bucket}/${from.split('/').map(encodeURIComponent).join('/')}`;
  if (size <= COPY_LIMIT) {
    await store.client.send(new CopyObjectCommand({ Bucket: store.bucket, Key: to, CopySource }));
    return;
  }
  const { UploadId } = await store.client.send(new CreateMultipartUploadCommand({ Bucket: store.bucket, Key: to }));
  try {
    const parts: { ETag?: string; PartNumber: number }[] = [];
    for (let start = 0, n = 1; start < size; start += COPY_PART, n++) {
      const end = Math.min(start + COPY_PART, size) - 1;
      const { CopyPartResult } = await store.client.send(
        new UploadPartCopyCommand({ Bucket: store.bucket, Key: to, UploadId, PartNumber: n, CopySource, CopySourceRange: `bytes=${start}-${end}` }),
      );
      parts.push({ ETag: CopyPartResult?.ETag, PartNumber: n });
    }
    await store.client.send(new CompleteMultipartUploadCommand({ Bucket: store.bucket, Key: to, UploadId, MultipartUpload: { Parts: parts } }));
  } catch (error) {
    await store.client.send(new AbortMultipartUploadCommand({ Bucket: store.bucket, Key: to, UploadId })).catch(() => undefined);
    throw error;
  }
}

export function createS3BlobStore(options: S3BlobStoreOptions): S3BlobStore {
  const bucket = options.bucket;
  const prefix = options.prefix ? options.prefix.replace(/\/*$/, '/') : '';
  const tmpPrefix = `${prefix}tmp/`;
  const partSize = options.partSize ?? DEFAULT_PART;
  const queueSize = options.queueSize ?? 4;
  const client = new S3Client({
    endpoint: options.endpoint,
    region: options.region,
    forcePathStyle: options.forcePathStyle,
    credentials: options.credentials,
    // Integrity is checked end to end against our own hashes (see verify); the SDK's default per-request
    // CRC32 trailers cost a pass over every byte and S3-compatible servers often do not decode them.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const active = new Set<string>();

  const keyFor = (sha256: string): string => {
    assertSha256(sha256);
    return `${prefix}blobs/${sha256}`;
  };

  const head = async (key: string) => {
    try {
      const r = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      return { size: r.ContentLength ?? 0, etag: (r.ETag ?? '').replace(/"/g, '') };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  };

  const remove = async (key: string) => {
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
  };

  const internals: StoreInternals = { client, bucket, keyFor, head, remove, settled: (key) => active.delete(key) };

  return {
    client,
    keyFor,

    async writer(opts) {
      const tempKey = `${tmpPrefix}${Date.now()}-${randomUUID()}`;
      active.add(tempKey);
      return new S3BlobWriter(internals, tempKey, partSize, queueSize, opts?.hashers ?? {}, options.hashing);
    },

    async has(sha256) {
      return (await head(keyFor(sha256))) !== null;
    },

    async stat(sha256) {
      const found = await head(keyFor(sha256));
      return found && { size: found.size };
    },

    async read(sha256: string, range?: BlobRange): Promise<Readable> {
      const key = keyFor(sha256);
      if (range && (range.start < 0 || (range.end !== undefined && range.end < range.start))) {
        throw new RangeError(`invalid range ${range.start}-${range.end ?? ''}`);
      }
      try {
        const r = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: range && `bytes=${range.start}-${range.end ?? ''}` }));
        const body = r.Body as Readable;
        if (!range) return body;
        // Some S3-compatible servers answer more than asked (the whole object, or `bytes=0-0` as `0-`): cut to the range.
        const servedStart = Number(/^bytes (\d+)-/.exec(r.ContentRange ?? '')?.[1] ?? 0);
        const wanted = range.end === undefined ? Infinity : range.end - range.start + 1;
        if (servedStart === range.start && (r.ContentLength ?? Infinity) <= wanted) return body;
        return Readable.from(slice(body, range.start - servedStart, wanted));
      } catch (error) {
        if (isMissing(error)) throw new BlobNotFoundError(sha256);
        // As on disk, a range that starts past the end reads as nothing.
        if (errorName(error) === 'InvalidRange') return Readable.from([]);
        throw error;
      }
    },

    async delete(sha256) {
      await remove(keyFor(sha256));
    },

    async sweepTemp(olderThanMs) {
      const cutoff = Date.now() - olderThanMs;
      let removed = 0;
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: tmpPrefix, ContinuationToken: token }));
        for (const object of page.Contents ?? []) {
          if (!object.Key || active.has(object.Key) || (object.LastModified?.getTime() ?? Infinity) >= cutoff) continue;
          await remove(object.Key);
          removed += 1;
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      removed += await abortStaleUploads(cutoff);
      return removed;
    },
  };

  async function abortStaleUploads(cutoff: number): Promise<number> {
    let aborted = 0;
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    do {
      let page;
      try {
        page = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: tmpPrefix, KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker }));
      } catch (error) {
        // Some S3-compatible servers cannot list uploads; a lifecycle rule (AbortIncompleteMultipartUpload) covers them.
        if (errorName(error) === 'NotImplemented') return aborted;
        throw error;
      }
      for (const upload of page.Uploads ?? []) {
        if (!upload.Key || active.has(upload.Key) || (upload.Initiated?.getTime() ?? Infinity) >= cutoff) continue;
        await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.Key, UploadId: upload.UploadId }));
        aborted += 1;
      }
      keyMarker = page.IsTruncated ? page.NextKeyMarker : undefined;
      uploadIdMarker = page.IsTruncated ? page.NextUploadIdMarker : undefined;
    } while (keyMarker);
    return aborted;
  }
}

/** The bytes of `source` after skipping `skip`, at most `take` of them. */
async function* slice(source: Readable, skip: number, take: number): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      let piece = chunk;
      if (skip > 0) {
        const dropped = Math.min(skip, piece.length);
        piece = piece.subarray(dropped);
        skip -= dropped;
      }
      if (piece.length > take) piece = piece.subarray(0, take);
      take -= piece.length;
      if (piece.length > 0) yield piece;
      if (take <= 0) return;
    }
  } finally {
    source.destroy();
  }
}
