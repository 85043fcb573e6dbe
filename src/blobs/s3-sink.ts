// A blob's bytes on their way to S3. Small blobs are held and sent in one PutObject. Larger ones go up as a
// multipart upload from a few fixed part buffers: one being filled, at most `queueSize` being sent. Memory per
// writer is therefore (queueSize + 1) x partSize at most, whatever the blob's size, and a part's body is a Buffer
// the SDK can send again when it retries.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
  UploadPartCopyCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { PartMd5 } from './part-md5.ts';
import type { CommittedBlob, HasherFactory } from './types.ts';
import type { BlobSink } from './writer.ts';

export interface StoreInternals {
  client: S3Client;
  bucket: string;
  keyFor(sha256: string): string;
  head(key: string): Promise<{ size: number; etag: string } | null>;
  remove(key: string): Promise<void>;
}

/**
 * Part buffers, reused from one part (and one writer) to the next instead of allocated per part: the allocator
 * would otherwise keep freed multi-MiB blocks around. Holds at most `cap` idle buffers; `drop` frees them.
 */
export class PartBuffers {
  private readonly idle: Buffer[] = [];

  constructor(
    readonly partSize: number,
    private readonly cap: number,
  ) {}

  take(): Buffer {
    return this.idle.pop() ?? Buffer.allocUnsafeSlow(this.partSize);
  }

  give(buffer: Buffer): void {
    if (this.idle.length < this.cap) this.idle.push(buffer);
  }

  drop(): void {
    this.idle.length = 0;
  }
}

/** Blobs up to this size never take a part buffer (most chat messages and metadata are far smaller). */
const SMALL = 256 * 1024;
// CopyObject copies at most 5 GiB; larger objects are copied part by part.
const COPY_LIMIT = 5 * 1024 * 1024 * 1024;
const COPY_PART = 1024 * 1024 * 1024;
const PARTS = 'parts';

export class S3Sink implements BlobSink {
  readonly hashers: Record<string, HasherFactory>;
  private held: Buffer[] = [];
  private heldBytes = 0;
  private part: Buffer | undefined;
  private fill = 0;
  private uploadId: Promise<string> | undefined;
  private completed = false;
  private readonly parts: { PartNumber: number; ETag?: string }[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private failure: unknown;

  constructor(
    private readonly store: StoreInternals,
    private readonly tempKey: string,
    private readonly buffers: PartBuffers,
    private readonly queueSize: number,
  ) {
    this.hashers = { [PARTS]: PartMd5.factory(buffers.partSize) };
  }

  async write(chunk: Uint8Array): Promise<void> {
    this.check();
    if (!this.part && !this.uploadId && this.heldBytes + chunk.length <= SMALL) {
      this.held.push(Buffer.from(chunk));
      this.heldBytes += chunk.length;
      return;
    }
    let offset = 0;
    while (offset < chunk.length) {
      if (!this.part) this.startPart();
      const n = Math.min(this.buffers.partSize - this.fill, chunk.length - offset);
      this.part!.set(chunk.subarray(offset, offset + n), this.fill);
      this.fill += n;
      offset += n;
      if (this.fill === this.buffers.partSize) await this.sendPart();
    }
  }

  async end(): Promise<void> {
    this.check();
    if (!this.uploadId) {
      const body = this.part ? this.part.subarray(0, this.fill) : Buffer.concat(this.held);
      await this.store.client.send(
        new PutObjectCommand({ Bucket: this.store.bucket, Key: this.tempKey, Body: body, ContentLength: body.length }),
      );
      this.releasePart();
      this.held = [];
      return;
    }
    if (this.fill > 0) await this.sendPart();
    await Promise.all(this.inFlight);
    this.check();
    await this.store.client.send(
      new CompleteMultipartUploadCommand({
        Bucket: this.store.bucket,
        Key: this.tempKey,
        UploadId: await this.uploadId,
        MultipartUpload: { Parts: this.parts },
      }),
    );
    this.completed = true;
  }

  async commit(blob: CommittedBlob, own: Record<string, string>): Promise<void> {
    await this.verify(blob, own[PARTS]);
    const finalKey = this.store.keyFor(blob.sha256);
    // Two writers of the same content may both copy; the bytes are identical, so the last copy changes nothing.
    if (!(await this.store.head(finalKey))) await copyObject(this.store, this.tempKey, finalKey, blob.size);
    await this.store.remove(this.tempKey);
  }

  async abort(): Promise<void> {
    this.failure ??= new Error('aborted');
    await Promise.allSettled(this.inFlight);
    this.releasePart();
    this.held = [];
    if (this.uploadId && !this.completed) {
      const UploadId = await this.uploadId.catch(() => undefined);
      if (UploadId)
        await this.store.client
          .send(new AbortMultipartUploadCommand({ Bucket: this.store.bucket, Key: this.tempKey, UploadId }))
          .catch(() => undefined);
    }
    // A single-request upload (or a completed one) may already be stored.
    await this.store.remove(this.tempKey).catch(() => undefined);
  }

  /** Moves from held bytes to a part buffer, starting with the bytes held so far. */
  private startPart(): void {
    this.part = this.buffers.take();
    for (const bytes of this.held) {
      this.part.set(bytes, this.fill);
      this.fill += bytes.length;
    }
    this.held = [];
    this.heldBytes = 0;
  }

  /** Sends the full (or last) part once fewer than queueSize parts are being sent. */
  private async sendPart(): Promise<void> {
    while (this.inFlight.size >= this.queueSize) {
      await Promise.race(this.inFlight);
      this.check();
    }
    const body = this.part!;
    const length = this.fill;
    this.part = undefined;
    this.fill = 0;
    const entry: { PartNumber: number; ETag?: string } = { PartNumber: this.parts.length + 1 };
    this.parts.push(entry);
    this.uploadId ??= this.store.client
      .send(new CreateMultipartUploadCommand({ Bucket: this.store.bucket, Key: this.tempKey }))
      .then((r) => r.UploadId!);
    const sending = this.uploadId
      .then((UploadId) =>
        this.store.client.send(
          new UploadPartCommand({
            Bucket: this.store.bucket,
            Key: this.tempKey,
            UploadId,
            PartNumber: entry.PartNumber,
            Body: body.subarray(0, length),
            ContentLength: length,
          }),
        ),
      )
      .then(
        (r) => {
          entry.ETag = r.ETag;
          this.buffers.give(body);
        },
        // A failed part's buffer is not reused: the request that held it may not be entirely gone.
        (error: unknown) => void (this.failure ??= error),
      )
      .finally(() => this.inFlight.delete(sending));
    this.inFlight.add(sending);
  }

  private releasePart(): void {
    if (this.part) this.buffers.give(this.part);
    this.part = undefined;
    this.fill = 0;
  }

  private check(): void {
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows the upload's own failure, as it came
    if (this.failure) throw this.failure;
  }

  /**
   * The temp object must hold exactly the bytes hashed. S3's ETag is the MD5 of a single-request upload, or the
   * MD5 of the parts' MD5s with "-<parts>" for a multipart one; some servers (and SSE-KMS) answer another ETag,
   * in which case the object is read back and its SHA-256 compared.
   */
  private async verify(blob: CommittedBlob, partsEtag: string | undefined): Promise<void> {
    const stored = await this.store.head(this.tempKey);
    if (!stored) throw new Error(`uploaded object ${this.tempKey} is missing`);
    if (stored.size !== blob.size)
      throw new Error(`uploaded object has ${stored.size} bytes, ${blob.size} were written`);
    if (stored.etag === blob.md5 || (partsEtag !== undefined && stored.etag === partsEtag)) return;
    const response = await this.store.client.send(
      new GetObjectCommand({ Bucket: this.store.bucket, Key: this.tempKey }),
    );
    const hash = createHash('sha256');
    for await (const chunk of response.Body as Readable) hash.update(chunk as Buffer);
    const sha256 = hash.digest('hex');
    if (sha256 !== blob.sha256)
      throw new Error(`uploaded object hashes to ${sha256}, the bytes written to ${blob.sha256}`);
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
        new UploadPartCopyCommand({
          Bucket: store.bucket,
          Key: to,
          UploadId,
          PartNumber: n,
          CopySource,
          CopySourceRange: `bytes=${start}-${end}`,
        }),
      );
      parts.push({ ETag: CopyPartResult?.ETag, PartNumber: n });
    }
    await store.client.send(
      new CompleteMultipartUploadCommand({
        Bucket: store.bucket,
        Key: to,
        UploadId,
        MultipartUpload: { Parts: parts },
      }),
    );
  } catch (error) {
    await store.client
      .send(new AbortMultipartUploadCommand({ Bucket: store.bucket, Key: to, UploadId }))
      .catch(() => undefined);
    throw error;
  }
}
