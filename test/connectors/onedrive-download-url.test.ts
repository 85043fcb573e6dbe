// A listed file's `@microsoft.graph.downloadUrl` (reference §2.4, §2.7): one request without the bearer token; its
// absence or expiry falls back to /content, and the bytes are still the file's.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import type { Connector, ContentSource, Grant, ItemInput } from '../../src/connectors/types.ts';
import { contentSource } from '../../src/connectors/onedrive/items.ts';
import { collectSources, pair, providerContext, readAll, testConnector } from './onedrive-harness.ts';

let sandbox: MicrosoftSandbox;
let connector: Connector;
let grant: Grant;
let alice: string;
/** How far the sandbox's clock runs ahead (sign-in checks its id token against the real time). */
let ahead = 0;
let sources: Array<{ item: ItemInput; content: ContentSource }>;

const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  sandbox = await startMicrosoftSandbox({
    seed: 41,
    users: 1,
    usersWithoutDrive: 0,
    downloadUrlLifetimeSeconds: 600,
    now: () => new Date(Date.now() + ahead),
  });
  connector = testConnector(sandbox);
  grant = await pair(connector);
  alice = sandbox.tenant.users[0].id;
  sources = await collectSources(connector, grant, alice);
});

afterAll(async () => {
  await sandbox?.close();
});

async function collected(source: { item: ItemInput; content: ContentSource }) {
  const mark = sandbox.requests.length;
  const { bytes } = await readAll(source.content);
  expect(sha256(bytes)).toBe(sha256(sandbox.contentOf(alice, source.item.sourceId)));
  return sandbox.requests.slice(mark).map((r) => ({ host: r.host, auth: r.auth, status: r.status, path: r.path }));
}

describe('OneDrive download URL from the listing', () => {
  it('downloads a listed file in one request to the download host, without the bearer token', async () => {
    expect(sources.length).toBeGreaterThan(3);
    const made = await collected(sources[0]);
    expect(made).toEqual([
      { host: 'download', auth: undefined, status: 200, path: expect.stringMatching(/\/download\.aspx$/) },
    ]);
  });

  it('asks /content when the listing gave no download URL, and the redirect target gets no token either', async () => {
    const { item } = sources[1];
    const http = providerContext(connector, grant).http;
    const content = contentSource(http, sandbox.graphUrl, alice, { id: item.sourceId, file: {} });
    const made = await collected({ item, content });
    expect(made.map((r) => [r.host, r.auth, r.status])).toEqual([
      ['graph', 'Bearer', 302],
      ['download', undefined, 200],
    ]);
    expect(made[0].path).toMatch(new RegExp(`/items/${item.sourceId}/content$`));
  });

  it('goes back to /content for a fresh URL once the listed one has expired, and collects the whole file', async () => {
    ahead += 601_000;
    const made = await collected(sources[2]);
    expect(made.map((r) => [r.host, r.auth, r.status])).toEqual([
      ['download', undefined, 401],
      ['graph', 'Bearer', 302],
      ['download', undefined, 200],
    ]);
  });
});
