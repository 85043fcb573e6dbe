import crypto from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import type { Connector, ContentSource, Grant, ItemInput } from '../../src/connectors/types.ts';
import {
  collectSources,
  MiniEngine,
  pair,
  providerContext,
  readAll,
  sandboxItems,
  selection,
  testConnector,
  type TestLog,
} from './onedrive-harness.ts';

let sandbox: MicrosoftSandbox;
let connector: Connector;
let grant: Grant;
let alice: string;
/** Every file of alice's drive with its content source, from one full run. */
let sources: Array<{ item: ItemInput; content: ContentSource }>;

const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  sandbox = await startMicrosoftSandbox({ seed: 23, users: 2, usersWithoutDrive: 0, fileSize: 40_000 });
  connector = testConnector(sandbox);
  grant = await pair(connector);
  alice = sandbox.tenant.users[0].id;
  sources = await collectSources(connector, grant, alice);
});

afterAll(async () => {
  await sandbox?.close();
});

beforeEach(() => {
  Object.assign(sandbox.faults, {
    corruptDownloads: 0,
    resetConnections: 0,
    expireDownloadUrls: false,
    ignoreRange: false,
    throttle429: 0,
    throttle503: 0,
  });
});

describe('OneDrive content', () => {
  it('states the quickXorHash of every file, and the bytes match it', async () => {
    expect(sources.length).toBeGreaterThan(5);
    for (const { item, content } of sources) {
      expect(content.providerHash?.type).toBe('quickXorHash');
      const { bytes, actualHash } = await readAll(content);
      expect(sha256(bytes)).toBe(sha256(sandbox.contentOf(alice, item.sourceId)));
      expect(actualHash).toBe(content.providerHash!.value);
    }
  });

  it('makes a corrupted download detectable: the bytes no longer hash to the stated quickXorHash', async () => {
    const { item, content } = sources[0];
    sandbox.faults.corruptDownloads = 1;
    const corrupted = await readAll(content);
    expect(corrupted.bytes.length).toBe(sandbox.contentOf(alice, item.sourceId).length);
    expect(corrupted.actualHash).not.toBe(content.providerHash!.value);
    const again = await readAll(content);
    expect(again.actualHash).toBe(content.providerHash!.value);
  });

  it('asks Graph for a fresh download URL (/content) when the download host says the listed one expired', async () => {
    const { item, content } = sources[1];
    let refusals = 1;
    Object.defineProperty(sandbox.faults, 'expireDownloadUrls', {
      configurable: true,
      get: () => refusals-- > 0,
      set: () => {},
    });
    try {
      const mark = sandbox.requests.length;
      const { bytes } = await readAll(content);
      expect(sha256(bytes)).toBe(sha256(sandbox.contentOf(alice, item.sourceId)));
      const made = sandbox.requests.slice(mark);
      expect(made.filter((r) => r.host === 'download').map((r) => r.status)).toEqual([401, 200]);
      expect(made.filter((r) => r.path.endsWith(`/items/${item.sourceId}/content`))).toHaveLength(1);
    } finally {
      Object.defineProperty(sandbox.faults, 'expireDownloadUrls', {
        configurable: true,
        writable: true,
        enumerable: true,
        value: false,
      });
    }
  });

  it('gives up after a few fresh URLs are all refused', async () => {
    sandbox.faults.expireDownloadUrls = true;
    await expect(sources[2].content.open(0, new AbortController().signal)).rejects.toMatchObject({ status: 401 });
  });

  it('resumes a broken download with Range and reports the partial answer', async () => {
    const { item, content } = sources.find((s) => (s.item.size ?? 0) > 1000)!;
    sandbox.faults.resetConnections = 1;
    const mark = sandbox.requests.length;
    const { bytes, partials } = await readAll(content);
    expect(partials).toBe(1);
    expect(sha256(bytes)).toBe(sha256(sandbox.contentOf(alice, item.sourceId)));
    const made = sandbox.requests.slice(mark);
    expect(made.filter((r) => r.host === 'download').map((r) => r.status)).toEqual([200, 206]);
    // Range went to the listed download URL, as the first request did: Graph was not asked.
    expect(made.filter((r) => r.host === 'graph')).toEqual([]);
  });

  it("resumes through the item's download URL when none is known yet, and through a fresh one after it expired", async () => {
    // The last large file: no other test opened it, so its source knows no download URL yet.
    const { item, content } = sources.filter((s) => (s.item.size ?? 0) > 1000).at(-1)!;
    expect(sources.indexOf(sources.filter((s) => (s.item.size ?? 0) > 1000).at(-1)!)).toBeGreaterThan(3);
    const full = sandbox.contentOf(alice, item.sourceId);
    const mark = sandbox.requests.length;
    const { bytes } = await readAll({
      open: async (offset, signal) => (offset === 0 ? content.open(100, signal) : content.open(offset, signal)),
    });
    expect(bytes.equals(full.subarray(100))).toBe(true);
    let refusals = 1;
    Object.defineProperty(sandbox.faults, 'expireDownloadUrls', {
      configurable: true,
      get: () => refusals-- > 0,
      set: () => {},
    });
    try {
      const again = await readAll({ open: async (offset, signal) => content.open(offset + 200, signal) });
      expect(again.bytes.equals(full.subarray(200))).toBe(true);
    } finally {
      Object.defineProperty(sandbox.faults, 'expireDownloadUrls', {
        configurable: true,
        writable: true,
        enumerable: true,
        value: false,
      });
    }
    const made = sandbox.requests.slice(mark);
    expect(made.filter((r) => r.host === 'download').map((r) => r.status)).toEqual([206, 401, 206]);
    expect(made.filter((r) => r.host === 'graph').every((r) => !r.path.endsWith('/content') && r.status === 200)).toBe(
      true,
    );
  });

  it('answers partial: false when the download host ignores Range', async () => {
    sandbox.faults.ignoreRange = true;
    const opened = await sources[0].content.open(10, new AbortController().signal);
    const { bytes } = await readAll({ open: async () => opened });
    expect(opened.partial).toBe(false);
    expect(bytes.length).toBe(sandbox.contentOf(alice, sources[0].item.sourceId).length);
  });

  it('survives 429 and 503 with a fractional Retry-After, pausing as asked', async () => {
    sandbox.faults.retryAfterSeconds = 0.3;
    sandbox.faults.throttle429 = 2;
    sandbox.faults.throttle503 = 1;
    const log: TestLog = { warnings: [] };
    const e = new MiniEngine(connector, providerContext(connector, grant, log));
    const mark = sandbox.requests.length;
    const started = Date.now();
    await e.run({ [alice]: selection({ all: true }) });
    const elapsed = Date.now() - started;
    const statuses = sandbox.requests.slice(mark).map((r) => r.status);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2);
    expect(statuses.filter((s) => s === 503)).toHaveLength(1);
    expect(elapsed).toBeGreaterThanOrEqual(850);
    expect(log.warnings.some((w) => /Retry-After/.test(w))).toBe(true);
    expect(e.files().length).toBe(sandboxItems(sandbox, alice).filter((i) => i.kind === 'file').length);
    expect(e.files().every((f) => f.verified === true)).toBe(true);
  });
});
