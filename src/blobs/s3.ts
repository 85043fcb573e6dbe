// Content-addressed blob store on S3 (or an S3-compatible server): <prefix>blobs/<sha256>.
// A blob streams into <prefix>tmp/<time>-<uuid> through a multipart upload while it is hashed; on commit the stored
// temp object is checked against the hashes (size, and the ETag S3 derives from the MD5 of the bytes it received),
// then copied to its content key and the temp object deleted. A reader never sees a key whose bytes were not
// verified; a crash leaves only tmp/ objects and unfinished multipart uploads, which sweepTemp removes.
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import type { HashingOptions } from './hashing.ts';
import { PartBuffers, S3Sink, type StoreInternals } from './s3-sink.ts';
import { assertSha256, BlobNotFoundError, type BlobRange, type BlobStore } from './types.ts';
import { PipelineWriter } from './writer.ts';

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
   * writer is at most (queueSize + 1) x partSize; the largest blob is 10,000 x partSize (80 GB by default).
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

function errorName(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } };
  if (e.$metadata?.httpStatusCode === 404) return 'NotFound';
  return e.Code ?? e.name;
}

const isMissing = (error: unknown) => ['NotFound', 'NoSuchKey'].includes(errorName(error) ?? '');

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

  const internals: StoreInternals = { client, bucket, keyFor, head, remove };
  const buffers = new PartBuffers(partSize, queueSize + 1);
  const settled = (tempKey: string) => {
    active.delete(tempKey);
    // An idle store holds no part buffers.
    if (active.size === 0) buffers.drop();
  };

  return {
    client,
    keyFor,

    async writer(opts) {
      const tempKey = `${tmpPrefix}${Date.now()}-${randomUUID()}`;
      active.add(tempKey);
      return new PipelineWriter(
        new S3Sink(internals, tempKey, buffers, queueSize),
        opts?.hashers,
        options.hashing,
        () => settled(tempKey),
      );
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
        const r = await client.send(
          new GetObjectCommand({ Bucket: bucket, Key: key, Range: range && `bytes=${range.start}-${range.end ?? ''}` }),
        );
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
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: tmpPrefix, ContinuationToken: token }),
        );
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
        page = await client.send(
          new ListMultipartUploadsCommand({
            Bucket: bucket,
            Prefix: tmpPrefix,
            KeyMarker: keyMarker,
            UploadIdMarker: uploadIdMarker,
          }),
        );
      } catch (error) {
        // Some S3-compatible servers cannot list uploads; a lifecycle rule (AbortIncompleteMultipartUpload) covers them.
        if (errorName(error) === 'NotImplemented') return aborted;
        throw error;
      }
      for (const upload of page.Uploads ?? []) {
        if (!upload.Key || active.has(upload.Key) || (upload.Initiated?.getTime() ?? Infinity) >= cutoff) continue;
        await client.send(
          new AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.Key, UploadId: upload.UploadId }),
        );
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
