// Drives the OneDrive connector against the Microsoft sandbox the way the engine does: a ProviderHttp with the
// grant's token (refreshed through the connector), events consumed one at a time, content skipped when the
// stored version is unchanged, broken streams resumed from the bytes received.
import crypto from 'node:crypto';
import { createOneDriveConnector } from '../../src/connectors/onedrive/index.ts';
import {
  isOAuthContinuation,
  type Connector,
  type ContentSource,
  type Grant,
  type ItemInput,
  type ProviderContext,
} from '../../src/connectors/types.ts';
import { localBudget } from '../../src/provider/budget-registry.ts';
import { ProviderHttp } from '../../src/provider/provider-http.ts';
import type { MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';

export const REDIRECT_URI = 'http://127.0.0.1:9/v1/oauth/callback/edrive';

export function testConnector(sandbox: MicrosoftSandbox): Connector {
  return createOneDriveConnector({
    clientId: sandbox.clientId,
    clientSecret: sandbox.clientSecret,
    loginUrl: sandbox.loginUrl,
    graphUrl: sandbox.graphUrl,
    budget: { ratePerSecond: 10_000 },
  });
}

/** Opens a URL at the sandbox as a browser would and returns the query it is redirected back with. */
async function redirectQuery(url: string): Promise<Record<string, string>> {
  const res = await fetch(url, { redirect: 'manual' });
  if (res.status !== 302) throw new Error(`${new URL(url).pathname} answered ${res.status}: ${await res.text()}`);
  return Object.fromEntries(new URL(res.headers.get('location')!).searchParams);
}

/** As the callback route does it: the admin signs in (code + PKCE), then consents for that tenant. */
export async function pair(connector: Connector): Promise<Grant> {
  const verifier = 'harness-pkce-verifier-0123456789-abcdefghijklmnop';
  const codeChallenge = crypto.createHash('sha256').update(verifier).digest('base64url');
  const signIn = await redirectQuery(
    connector.oauth.authorizationUrl({ state: 'st-1', redirectUri: REDIRECT_URI, codeChallenge }),
  );
  const next = await connector.oauth.completeCallback({
    query: signIn,
    redirectUri: REDIRECT_URI,
    codeVerifier: verifier,
  });
  if (!isOAuthContinuation(next)) return next;
  const consent = await redirectQuery(next.continueTo('st-2'));
  const grant = await connector.oauth.completeCallback({
    query: consent,
    redirectUri: REDIRECT_URI,
    codeVerifier: verifier,
    carried: next.carry,
  });
  if (isOAuthContinuation(grant)) throw new Error('pairing did not end after the admin consent');
  return grant;
}

export interface TestLog {
  warnings: string[];
}

export function providerContext(connector: Connector, grant: Grant, log: TestLog = { warnings: [] }): ProviderContext {
  let current = grant;
  const logger = {
    info() {},
    debug() {},
    error() {},
    warn(obj: object, msg?: string) {
      log.warnings.push(`${msg ?? ''} ${JSON.stringify(obj)}`);
    },
  };
  const http = new ProviderHttp({
    budget: localBudget(connector.limits.budget),
    retry: connector.limits.retry,
    userAgent: connector.userAgent,
    quirks: connector.quirks,
    log: logger,
    auth: {
      token: async () => current.access_token!,
      refresh: async () => {
        current = await connector.oauth.refresh(current);
        return current.access_token!;
      },
    },
  });
  return {
    http,
    grantInfo: { tenant_id: grant.tenant_id },
    signal: new AbortController().signal,
    now: () => new Date(),
    log: logger,
  };
}

export interface StoredItem {
  input: ItemInput;
  sha256?: string;
  /** quickXorHash of the bytes received, base64 */
  actualHash?: string;
  verified?: boolean | null;
}

export interface RunResult {
  items: ItemInput[];
  deleted: Array<{ kind: string; sourceId: string }>;
  errors: Array<{ reason: string; sourceId?: string }>;
  /** listing_complete events, and the stored items each one took for deleted */
  listings: Array<{ custodian: string; kinds: string[]; unseen: string[] }>;
  checkpoints: number;
  downloads: number;
  cursors: unknown;
}

/** A stand-in for the engine's item store: what is kept between runs of one collection. */
export class MiniEngine {
  readonly stored = new Map<string, StoredItem>();
  cursors: unknown = null;
  lastCheckpoint: unknown = null;
  /** keys seen since the run began, across an abandoned attempt and its resumption (the engine's listing marks) */
  private seen = new Set<string>();

  constructor(
    private readonly connector: Connector,
    private readonly ctx: ProviderContext,
  ) {}

  /** One run; `stopAfterCheckpoints` abandons it (like a crash) after that many checkpoints. */
  async run(filters: unknown, opts: { resume?: boolean; stopAfterCheckpoints?: number } = {}): Promise<RunResult> {
    const result: RunResult = {
      items: [],
      deleted: [],
      errors: [],
      listings: [],
      checkpoints: 0,
      downloads: 0,
      cursors: undefined,
    };
    if (!opts.resume) this.seen = new Set();
    const events = this.connector.collect({
      ...this.ctx,
      collectionId: 'col_test',
      filters,
      checkpoint: opts.resume ? this.lastCheckpoint : null,
      cursors: this.cursors,
    });
    for await (const ev of events) {
      // The engine serializes states when it handles the event.
      if (ev.type === 'checkpoint') {
        this.lastCheckpoint = JSON.parse(JSON.stringify(ev.state));
        result.checkpoints += 1;
        if (opts.stopAfterCheckpoints !== undefined && result.checkpoints >= opts.stopAfterCheckpoints) return result;
      } else if (ev.type === 'cursors') {
        result.cursors = JSON.parse(JSON.stringify(ev.value));
      } else if (ev.type === 'deleted') {
        result.deleted.push({ kind: ev.kind, sourceId: ev.sourceId });
        this.stored.delete(`${ev.kind}:${ev.sourceId}`);
      } else if (ev.type === 'error') {
        result.errors.push({ reason: ev.reason, sourceId: ev.sourceId });
      } else if (ev.type === 'present') {
        this.seen.add(`${ev.kind}:${ev.sourceId}`);
      } else if (ev.type === 'listing_complete') {
        const unseen = [...this.stored.entries()]
          .filter(
            ([key, s]) => s.input.custodian === ev.custodian && ev.kinds.includes(s.input.kind) && !this.seen.has(key),
          )
          .map(([key]) => key);
        for (const key of unseen) this.stored.delete(key);
        result.listings.push({ custodian: ev.custodian, kinds: ev.kinds, unseen });
      } else if (ev.type === 'item') {
        this.seen.add(`${ev.item.kind}:${ev.item.sourceId}`);
        result.items.push(ev.item);
        await this.onItem(ev.item, ev.content, result);
      }
    }
    this.cursors = result.cursors;
    this.lastCheckpoint = null;
    return result;
  }

  private async onItem(input: ItemInput, content: ContentSource | undefined, result: RunResult): Promise<void> {
    const key = `${input.kind}:${input.sourceId}`;
    const existing = this.stored.get(key);
    if (existing && existing.input.version === input.version && (!content || existing.sha256)) {
      existing.input = input;
      return;
    }
    if (!content) {
      this.stored.set(key, { input });
      return;
    }
    result.downloads += 1;
    const { bytes, actualHash } = await readAll(content);
    const verified = content.providerHash ? actualHash === content.providerHash.value : null;
    this.stored.set(key, {
      input,
      sha256: crypto.createHash('sha256').update(bytes).digest('hex'),
      actualHash,
      verified,
    });
  }

  files(): StoredItem[] {
    return [...this.stored.values()].filter((s) => s.input.kind === 'file');
  }
}

/** Reads a content source to the end, resuming after broken streams like the engine (at most 3 times). */
export async function readAll(
  content: ContentSource,
): Promise<{ bytes: Buffer; actualHash: string | undefined; partials: number }> {
  const signal = new AbortController().signal;
  let chunks: Buffer[] = [];
  let size = 0;
  let partials = 0;
  for (let attempt = 0; ; attempt++) {
    const { body, partial } = await content.open(size, signal);
    if (size > 0 && !partial) {
      chunks = [];
      size = 0;
    }
    if (partial) partials += 1;
    try {
      for await (const chunk of body) {
        chunks.push(chunk as Buffer);
        size += (chunk as Buffer).length;
      }
      break;
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
  const bytes = Buffer.concat(chunks);
  const hasher = content.providerHash?.create();
  hasher?.update(bytes);
  const digest = hasher?.digest();
  return {
    bytes,
    actualHash: digest === undefined ? undefined : typeof digest === 'string' ? digest : digest.toString('base64'),
    partials,
  };
}

/** Live items of a user's drive as the sandbox holds them, with their paths (root excluded). */
export function sandboxItems(
  sandbox: MicrosoftSandbox,
  userId: string,
): Array<{ id: string; kind: string; path: string }> {
  return sandbox
    .listItems(userId)
    .filter((i) => i.parentId !== null)
    .map((i) => ({ id: i.id, kind: i.kind, path: sandbox.itemPathOf(userId, i.id) }));
}

export function descendantsOf(sandbox: MicrosoftSandbox, userId: string, folderId: string): Set<string> {
  const items = sandbox.listItems(userId);
  const out = new Set<string>([folderId]);
  for (const item of items) if (item.parentId !== null && out.has(item.parentId)) out.add(item.id);
  return out;
}

export function selection(opts: { all?: boolean; selected?: string[]; excluded?: string[] }) {
  return {
    all_selected: opts.all ?? false,
    selected: (opts.selected ?? []).map((id) => ({ id })),
    excluded: (opts.excluded ?? []).map((id) => ({ id })),
    filter_type: 'user_folders',
    filter_name: 'test',
  };
}

/** Every file of one user's drive with its content source, from one full run. */
export async function collectSources(
  connector: Connector,
  grant: Grant,
  userId: string,
): Promise<Array<{ item: ItemInput; content: ContentSource }>> {
  const sources: Array<{ item: ItemInput; content: ContentSource }> = [];
  const events = connector.collect({
    ...providerContext(connector, grant),
    collectionId: 'c',
    filters: { [userId]: selection({ all: true }) },
    checkpoint: null,
    cursors: null,
  });
  for await (const ev of events)
    if (ev.type === 'item' && ev.content) sources.push({ item: ev.item, content: ev.content });
  return sources;
}
