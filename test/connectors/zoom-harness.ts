// Drives the Zoom connector against the Zoom sandbox the way the engine does: paired through the connector's
// own OAuth, a ProviderHttp whose auth refreshes through the connector (rotating refresh tokens), events
// consumed one at a time, content read (and resumed) like the engine, unchanged content not downloaded again.
import crypto from 'node:crypto';
import { expect } from 'vitest';
import { createZoomConnector } from '../../src/connectors/zoom/index.ts';
import type {
  CollectEvent,
  Connector,
  ContentSource,
  Grant,
  ItemInput,
  ProviderContext,
} from '../../src/connectors/types.ts';
import type { ConfFilters } from '../../src/domain/filters/conf.ts';
import type { Clock } from '../../src/provider/budget.ts';
import { localBudget } from '../../src/provider/budget-registry.ts';
import { ProviderHttp } from '../../src/provider/provider-http.ts';
import type { RetryConfig } from '../../src/provider/retry.ts';
import type { ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { pkcePair } from '../../sandbox/zoom/testing.ts';
import { confOracle, FILE_KINDS, selectsId, zoomFileSourceId } from '../completeness/oracle.ts';

export const REDIRECT_URI = 'http://127.0.0.1:9/v1/oauth/callback/conf';
export const LOOKBACK_DAYS = 180;

export function testConnector(sandbox: ZoomSandbox): Connector {
  return createZoomConnector({
    clientId: sandbox.clientId,
    clientSecret: sandbox.clientSecret,
    oauthUrl: sandbox.oauthUrl,
    apiUrl: sandbox.apiUrl,
    lookbackDays: LOOKBACK_DAYS,
    budget: { ratePerSecond: 10_000 },
  });
}

/** authorizationUrl → the sandbox's consent page (302 back) → completeCallback. */
export async function pair(connector: Connector): Promise<Grant> {
  const { verifier, challenge } = pkcePair();
  const url = connector.oauth.authorizationUrl({ state: 'st-1', redirectUri: REDIRECT_URI, codeChallenge: challenge });
  const res = await fetch(url, { redirect: 'manual' });
  if (res.status !== 302) throw new Error(`authorize answered ${res.status}`);
  const query = Object.fromEntries(new URL(res.headers.get('location')!).searchParams);
  return connector.oauth.completeCallback({ query, redirectUri: REDIRECT_URI, codeVerifier: verifier });
}

/** A clock whose waits pass at once while its time moves on by the waited amount (429 storms in milliseconds). */
export function virtualClock(start?: number): Clock & { waits: number[] } {
  // from `start` when given (the wall clock's progress added), so a test can fix the time of day it runs at
  let offset = start === undefined ? 0 : start - Date.now();
  const waits: number[] = [];
  return {
    waits,
    now: () => Date.now() + offset,
    timer(ms, fn) {
      waits.push(ms);
      const handle = setTimeout(() => {
        offset += Math.max(0, ms);
        fn();
      }, 0);
      return () => clearTimeout(handle);
    },
  };
}

export interface Session {
  ctx: ProviderContext;
  /** Every grant the session held, the first one included (rotation can be checked on them). */
  grants: Grant[];
  warnings: string[];
}

export function session(
  connector: Connector,
  grant: Grant,
  opts: { clock?: Clock; retry?: RetryConfig } = {},
): Session {
  const grants = [grant];
  const warnings: string[] = [];
  let refreshing: Promise<Grant> | undefined;
  const log = {
    info() {},
    debug() {},
    error() {},
    warn(obj: object, msg?: string) {
      warnings.push(`${msg ?? ''} ${JSON.stringify(obj)}`);
    },
  };
  const current = () => grants[grants.length - 1];
  const refresh = async () => {
    refreshing ??= connector.oauth
      .refresh(current())
      .then((g) => {
        grants.push(g);
        return g;
      })
      .finally(() => {
        refreshing = undefined;
      });
    return refreshing;
  };
  const http = new ProviderHttp({
    budget: localBudget(connector.limits.budget, opts.clock),
    retry: opts.retry ?? connector.limits.retry,
    userAgent: connector.userAgent,
    quirks: connector.quirks,
    clock: opts.clock,
    log,
    auth: {
      token: async () => current().access_token!,
      refresh: async (rejected) => (current().access_token !== rejected ? current() : await refresh()).access_token!,
    },
  });
  return {
    ctx: { http, grantInfo: {}, signal: new AbortController().signal, now: () => new Date(), log },
    grants,
    warnings,
  };
}

export interface Collected {
  input: ItemInput;
  sha256?: string;
}

export interface RunResult {
  /** Every item event in order (duplicates included). */
  items: ItemInput[];
  errors: Array<{ reason: string; sourceId?: string }>;
  checkpoints: unknown[];
  cursors: unknown;
  /** Files fetched from the provider (record blobs apart). */
  downloads: number;
  /** Record blobs stored (issue 20: a meeting's or a message's record, new or a new version). */
  records: number;
  /** true when the run was abandoned at `stopAfterCheckpoints` */
  stopped: boolean;
}

/** The engine's item store in miniature: what one collection keeps between runs. */
export class MiniEngine {
  readonly stored = new Map<string, Collected>();
  cursors: unknown = null;
  lastCheckpoint: unknown = null;

  constructor(
    private readonly connector: Connector,
    private readonly ctx: ProviderContext,
  ) {}

  async run(
    filters: unknown,
    opts: { resume?: boolean; stopAfterCheckpoints?: number; onEvent?: (ev: CollectEvent) => void } = {},
  ): Promise<RunResult> {
    const result: RunResult = {
      items: [],
      errors: [],
      checkpoints: [],
      cursors: undefined,
      downloads: 0,
      records: 0,
      stopped: false,
    };
    const events = this.connector.collect({
      ...this.ctx,
      collectionId: 'col_zoom',
      filters,
      checkpoint: opts.resume ? this.lastCheckpoint : null,
      cursors: this.cursors,
    });
    for await (const ev of events) {
      opts.onEvent?.(ev);
      // an owner's end carries the checkpoint past it
      const checkpoint = ev.type === 'checkpoint' ? ev : ev.type === 'unit' ? ev.checkpoint : undefined;
      if (checkpoint) {
        // The engine stores states as JSON.
        this.lastCheckpoint = JSON.parse(JSON.stringify(checkpoint.state));
        result.checkpoints.push(this.lastCheckpoint);
        if (opts.stopAfterCheckpoints !== undefined && result.checkpoints.length >= opts.stopAfterCheckpoints) {
          result.stopped = true;
          return result;
        }
      } else if (ev.type === 'cursors') {
        result.cursors = JSON.parse(JSON.stringify(ev.value));
      } else if (ev.type === 'error') {
        result.errors.push({ reason: ev.reason, sourceId: ev.sourceId });
      } else if (ev.type === 'item') {
        result.items.push(ev.item);
        await this.onItem(ev.item, ev.content, result);
      }
    }
    this.cursors = result.cursors;
    this.lastCheckpoint = null;
    return result;
  }

  private async onItem(input: ItemInput, content: ContentSource | undefined, result: RunResult): Promise<void> {
    const key = keyOf(input.kind, input.sourceId);
    const existing = this.stored.get(key);
    if (existing && existing.input.version === input.version && (!content || existing.sha256)) {
      existing.input = input;
      return;
    }
    if (!content) {
      this.stored.set(key, { input });
      return;
    }
    if (RECORD_KINDS.includes(input.kind)) result.records += 1;
    else result.downloads += 1;
    try {
      this.stored.set(key, { input, sha256: sha256(await readAll(content)) });
    } catch (err) {
      // As the engine does: the item's content failed, the run goes on.
      result.errors.push({ reason: `content download failed: ${(err as Error).message}`, sourceId: input.sourceId });
    }
  }
}

export function keyOf(kind: string, sourceId: string): string {
  return `${kind}|${sourceId}`;
}

export function sha256(bytes: Buffer): string {
  return crypto.createHash('sha256').update(bytes).digest('hex');
}

/** Reads a source like the engine: rejectIf on the first chunk, broken streams reopened from the bytes held. */
export async function readAll(content: ContentSource): Promise<Buffer> {
  const signal = new AbortController().signal;
  let chunks: Buffer[] = [];
  let size = 0;
  for (let attempt = 0; ; attempt++) {
    const { body, partial } = await content.open(size, signal);
    if (size > 0 && !partial) {
      chunks = [];
      size = 0;
    }
    try {
      for await (const chunk of body) {
        const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
        if (size === 0 && content.rejectIf) {
          const reason = content.rejectIf(buf);
          if (reason) throw Object.assign(new Error(reason), { rejected: true });
        }
        chunks.push(buf);
        size += buf.length;
      }
      return Buffer.concat(chunks);
    } catch (error) {
      if ((error as { rejected?: boolean }).rejected || attempt >= 3) throw error;
    }
  }
}

// ---- what the sandbox holds that the filters allow -------------------------------------------------------

/** What an item's sha256 must equal for an `Expected` value: any SHA-256 for a record (use with toEqual). */
export function shaMatcher(want: string | null | undefined): unknown {
  return want === 'record' ? expect.stringMatching(/^[0-9a-f]{64}$/) : want;
}

/** Kinds whose content is the record Zoom returned for them (issue 20), not bytes the sandbox serves. */
export const RECORD_KINDS = ['meeting', 'chat_message', 'channel_message'];

export interface Expected {
  /** key -> the SHA-256 of the bytes the sandbox serves (content items), 'record' (a record blob, see RECORD_KINDS), or null */
  items: Map<string, string | null>;
  owners: string[];
}

export const sandboxFileSourceId = zoomFileSourceId;

/**
 * What a collection with these filters must hold: which items from the spec's own oracle (test/completeness/
 * oracle.ts, written from the filter tables, nothing of src/ in it), the bytes of each content item from the
 * sandbox. A pending user (invited, never joined) is not an owner `all_selected` takes: Zoom lists users
 * `status=active` by default and such a user has no meetings or chats of its own.
 */
export function expectedItems(
  sandbox: ZoomSandbox,
  filters: ConfFilters,
  opts: { reports?: boolean; legalHold?: boolean } = {},
): Expected {
  const tenant = sandbox.tenant;
  const owners = tenant.users.filter(
    (u) => selectsId(filters.account_owners, u.id) && !(filters.account_owners.all_selected && u.status === 'pending'),
  );
  const ownerFilters = {
    ...filters,
    account_owners: { all_selected: false, selected: owners.map((o) => ({ id: o.id })), excluded: [] },
  };
  const items = new Map<string, string | null>();
  for (const e of confOracle(tenant, ownerFilters, undefined, undefined, opts).values()) {
    const k = keyOf(e.kind, e.sourceId);
    // Chat files by file id; legal-hold exports by the file_key after `<matter_id>|`.
    const body =
      e.kind === 'chat_file'
        ? tenant.textBodies.get(e.sourceId)
        : e.kind === 'legal_hold_file'
          ? tenant.textBodies.get(e.sourceId.slice(e.sourceId.indexOf('|') + 1))
          : undefined;
    items.set(k, RECORD_KINDS.includes(e.kind) ? 'record' : body ? sha256(body) : null);
  }
  for (const owner of owners) {
    for (const m of tenant.meetingsOf(owner.id)) {
      for (const f of m.recording_files) {
        const k = keyOf(FILE_KINDS[f.file_type].kind, zoomFileSourceId(m, f));
        if (items.has(k)) items.set(k, sha256(sandbox.contentOf(f.id)));
      }
      for (const f of m.participant_audio_files ?? []) {
        const k = keyOf('participant_audio', f.id);
        if (items.has(k)) items.set(k, sha256(sandbox.contentOf(f.id)));
      }
      // The summary is kept as the JSON document the API answered, pretty-printed.
      const notes = keyOf('ai_meeting_notes', m.uuid);
      if (m.summary && items.has(notes)) items.set(notes, sha256(Buffer.from(JSON.stringify(m.summary, null, 2))));
    }
  }
  return { items, owners: owners.map((o) => o.id) };
}

export function sel(opts: { all?: boolean; selected?: string[]; excluded?: string[] }) {
  return {
    all_selected: opts.all ?? false,
    selected: (opts.selected ?? []).map((id) => ({ id })),
    excluded: (opts.excluded ?? []).map((id) => ({ id })),
  };
}

export const ALL_CONTENT = { all_selected: true, selected: [], excluded: [] };
export const ALL_CHATS = { all_selected: true, selected: [], excluded: [] };

export function filters(f: Partial<ConfFilters> & Pick<ConfFilters, 'account_owners'>): ConfFilters {
  return { content_selections: ALL_CONTENT, ...f };
}

/** The ZOOM_* settings that point the server's own wiring at a sandbox. */
export function zoomEnv(sandbox: ZoomSandbox, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ZOOM_CLIENT_ID: sandbox.clientId,
    ZOOM_CLIENT_SECRET: sandbox.clientSecret,
    ZOOM_OAUTH_URL: sandbox.oauthUrl,
    ZOOM_API_URL: sandbox.apiUrl,
    ...extra,
  };
}
