import type { Readable } from 'node:stream';
import type { FilterIssue } from '../domain/filters/selection.ts';
import type { BudgetConfig } from '../provider/budget.ts';
import type { ProviderHttp } from '../provider/provider-http.ts';
import type { ProviderQuirks } from '../provider/quirks.ts';
import type { RetryConfig } from '../provider/retry.ts';

/**
 * The only thing the engine and the HTTP layer know about a source. A connector is mostly data (OAuth shape,
 * limits) plus a few functions. Register a new one in registry.ts; nothing else changes.
 */
export interface Connector {
  type: string;
  /** Wallet `config_type` a collection of this type must reference. */
  configType: string;
  oauth: ConnectorOAuth;
  /** Request budget and concurrency per credential, and how hard to retry. */
  limits: { budget: BudgetConfig; retry: RetryConfig };
  /** The provider's rate-limit and request-id headers and how to read its error responses. */
  quirks: ProviderQuirks;
  userAgent: string;
  /** Returns the problems of a sync_filters value, each with a JSON pointer; [] when valid. */
  validateFilters(filters: unknown): FilterIssue[];
  /**
   * Checks valid filters against the paired account: ids the provider does not know, each named. Resolves
   * undefined when it cannot tell (too many ids, the provider unavailable): the run then reports them.
   */
  checkFilterIds?(ctx: ProviderContext, filters: unknown): Promise<FilterIssue[] | undefined>;
  /**
   * Permissions (OAuth scopes, app roles) valid filters need that the paired grant lacks, read from the grant's
   * non-secret facts without asking the provider; undefined when the grant does not say what it holds.
   */
  missingPermissions?(grantInfo: Record<string, unknown>, filters: unknown): PermissionGap[] | undefined;
  discovery: Partial<Record<DiscoveryKind, DiscoveryHandler>>;
  /** Pulls exactly what the filters allow. Resumable: see CollectContext.checkpoint. */
  collect(ctx: CollectContext): AsyncIterable<CollectEvent>;
  /**
   * Tries the pieces earlier runs could not collect again (also after the high-water mark moved past them):
   * yields their `item` events, or `error` / `not_present` / `deleted` for each. Optional: without it failed
   * pieces are retried only when a listing reaches them again.
   */
  retryPieces?(ctx: CollectContext, pieces: RetryPiece[]): AsyncIterable<CollectEvent>;
  /** Splits a run into one job per unit (custodian), which any worker process may take. */
  units?: UnitPlanner;
  /** Item kinds this connector produces (documentation, validation of ?kind=). */
  kinds: readonly string[];
  /**
   * Per-custodian change subscriptions the service must keep (Graph drive subscriptions), when the provider needs
   * them; custodians are the keys of the filters. Absent: the provider pushes events without one (Zoom).
   */
  subscriptions?: ChangeSubscriptions;
  /** How an event-driven collection of this grant learns of changes (the collection view's `event_mode`). */
  eventMode?(
    grantInfo: Record<string, unknown>,
    filters: unknown,
  ): { event_mode: 'subscription' | 'polling'; polling_interval_minutes?: number };
  /** Events the provider pushes to Custody's webhook route (Zoom): what a stored event concerns. */
  webhooks?: WebhookEvents;
}

/** A permission the filters need and the grant lacks. */
export interface PermissionGap {
  /** The scope (or role) exactly as the provider names it. */
  permission: string;
  /** What of the filters needs it. */
  feature: string;
  /** JSON pointer into the filters of the part that switches the feature on. */
  pointer: string;
  /** The whole sentence for a person: the permission, the feature, what to do. */
  message: string;
}

export interface WebhookEventFacts {
  event: string;
  /** The provider account it happened in (routing key: the paired wallet's provider account). */
  accountId: string;
  /** User id (or e-mail) of the person whose content changed; null when the event names nobody. */
  custodian: string | null;
  dedupKey: string;
}

export interface WebhookEvents {
  /** The inbox's `provider` name of these events. */
  provider: string;
  /** The facts of an event Custody acts on; null for the others. */
  facts(body: unknown): WebhookEventFacts | null;
  /** Whether a collection's filters select what this event changed (custodian and content). */
  selects(filters: unknown, facts: WebhookEventFacts): boolean;
}

export interface ChangeSubscriptions {
  /** Whether subscriptions may be tried with this grant (its non-secret facts); absent: always. */
  usable?(grantInfo: Record<string, unknown>): boolean;
  create(
    ctx: ProviderContext,
    input: { userId: string; notificationUrl: string; clientState: string; expiresAt: string },
  ): Promise<{ id: string; expiresAt: string }>;
  /** 'gone' when the provider no longer knows the subscription (expired, removed). */
  renew(ctx: ProviderContext, id: string, expiresAt: string): Promise<{ expiresAt: string } | 'gone'>;
  /** Deletes it; one already gone is not an error. */
  remove(ctx: ProviderContext, id: string): Promise<void>;
}

export type { FilterIssue } from '../domain/filters/selection.ts';

/** Connector-defined JSON held sealed in the wallet. Never logged, never returned. */
export interface Grant {
  access_token?: string;
  refresh_token?: string;
  /** ISO time the access token expires */
  expires_at?: string;
  [key: string]: unknown;
}

export interface ConnectorOAuth {
  /** Endpoint 4's answer: a 302 to the provider (`redirect`) or 200 `{authorization_url}` (`json`). */
  authorizationResponse: 'redirect' | 'json';
  /** Scope sets by `scopes_type` (documentation and URL building). */
  scopes: Record<string, string[]>;
  authorizationUrl(input: { state: string; redirectUri: string; codeChallenge: string; scopesType?: string }): string;
  /**
   * Finishes the provider's redirect to our callback. The state has been verified and the `error` parameter
   * handled already. Returns the grant to keep (exchanging a code, or proving an admin consent), or a
   * continuation: the browser is sent on to another provider step with a fresh signed state, and that step's
   * callback gets the continuation's `carry` back as `carried`.
   */
  completeCallback(input: {
    query: Record<string, string | undefined>;
    redirectUri: string;
    codeVerifier: string;
    /** The `carry` of the continuation that led to this callback; absent on the first one. */
    carried?: Record<string, string>;
  }): Promise<Grant | OAuthContinuation>;
  /** A fresh grant before expiry or after a 401 (a rotated refresh token included). Throws GrantRevokedError (domain/run-failures). */
  refresh(grant: Grant): Promise<Grant>;
  /**
   * Withdraws the grant at the provider (its tokens stop working there), where the provider offers it. Throws when
   * the provider refused or could not be reached; the error never carries a token.
   */
  revoke?(grant: Grant): Promise<void>;
}

/**
 * Another provider step before the grant exists (e.g. sign the admin in, then ask for consent in their tenant).
 * `carry` travels inside the next signed, single-use state, so the next step can trust it; keep it small and free
 * of secrets (the state is signed, not encrypted). A type literal rather than an interface, so that code written
 * when completeCallback could only return a Grant still type-checks; tell the two apart with isOAuthContinuation.
 */
export type OAuthContinuation = {
  continueTo(state: string): string;
  carry: Record<string, string>;
};

export function isOAuthContinuation(value: Grant | OAuthContinuation): value is OAuthContinuation {
  return typeof (value as Partial<OAuthContinuation>).continueTo === 'function';
}

/** Thrown by completeCallback when the provider reports a failure the user should see. */
export class ProviderAuthError extends Error {
  constructor(
    public error: string,
    public description: string,
  ) {
    super(description);
  }
}

export type DiscoveryKind = 'users' | 'channels' | 'folders';

export interface ProviderContext {
  http: ProviderHttp;
  /** The grant's non-secret facts (tenant id, account id...). Tokens are applied by `http`, never read here. */
  grantInfo: Record<string, unknown>;
  signal: AbortSignal;
  now(): Date;
  log: Logger;
}

/** Answers GET /collections/{id}/{kind}; throws a DomainError (domain/errors) for 400/404. */
export type DiscoveryHandler = (ctx: ProviderContext, query: Record<string, string | undefined>) => Promise<unknown>;

export interface CollectContext extends ProviderContext {
  collectionId: string;
  filters: unknown;
  /** The last `checkpoint` state this connector yielded in this run, when resuming after a crash; else null. */
  checkpoint: unknown;
  /** The `cursors` the previous successful run ended with (delta links, high-water marks); null on a first run. */
  cursors: unknown;
  /**
   * A targeted run (a provider event) is limited to these custodians (user ids, or e-mails when the event named
   * no id); null: everyone the filters select. A limited run's `cursors` must still carry every other
   * custodian's previous cursor unchanged.
   */
  scope?: string[] | null;
  /**
   * A run fanned out into units (Connector.units): this collect is one unit's (`scope` is that unit's key), and
   * these are every unit of the run as planned, so that a piece two units reach is left to one of them (and the
   * unit need not resolve again what the plan did).
   */
  units?: UnitSpec[];
  /**
   * A run fanned out into units: a piece more than one unit could reach (a Zoom channel, by its id) is collected by
   * the unit whose claim wins, only. Absent: this collect is the whole run.
   */
  claim?(key: string): Promise<boolean>;
}

/**
 * How a run splits into units, each a job of its own (a connector without it runs as one job). `plan` resolves
 * the custodians the filters (and a targeted run's `scope`) select, reporting selection problems as events; each
 * unit is then collected by `collect` with `scope: [unit.key]`. `mergeCursors` builds the run's cursors from each
 * unit's (which carry every other custodian's previous cursor unchanged); a unit that ended without cursors keeps
 * its previous ones. `partial`: a targeted run, which keeps everyone else's cursors too.
 */
export interface UnitPlanner {
  plan(ctx: CollectContext): Promise<{ units: UnitSpec[]; events: CollectEvent[] }>;
  mergeCursors(previous: unknown, parts: Array<{ unit: string; cursors: unknown }>, partial: boolean): unknown;
  /**
   * Pieces the filters name one by one that no unit reached (`claimed`: the pieces units claimed): a Zoom channel
   * none of the selected owners is a member of. The fan-in of a full run reports each as a failed unit.
   */
  unreached?(filters: unknown, claimed: string[]): Array<{ key: string; kind: UnitSpec['kind']; reason: string }>;
}

/** A unit of a run: one custodian (a Zoom owner, a OneDrive user) or one Zoom channel. */
export interface UnitSpec {
  /** provider user id (as on items' `custodian`), or the channel id */
  key: string;
  kind: 'custodian' | 'channel';
  email?: string | null;
  /** The person's display name (a Zoom channel: its name), as the provider gives it now: stored with the items. */
  name?: string | null;
  /** What the plan hands this unit (JSON; the Zoom summaries list of this owner): read once per run, not per unit. */
  data?: unknown;
}

export type CollectEvent =
  | { type: 'item'; item: ItemInput; content?: ContentSource }
  /** The source deleted this item: tombstoned (auto) or only marked (arch) by the engine. */
  | { type: 'deleted'; kind: string; sourceId: string }
  /**
   * A piece that could not be collected (a file, a summary, a page of messages, a whole custodian when `kind` is
   * `custodian`). It affects that piece only; it counts once in its unit's `failed`. `retry` is what the connector
   * needs to fetch the piece again (see Connector.retryPieces); without it the piece is reported but not retried.
   */
  | {
      type: 'error';
      reason: string;
      sourceId?: string;
      kind?: string;
      custodian?: string;
      name?: string;
      retry?: unknown;
    }
  /** An optional piece the source does not have (e.g. a 404 on a meeting's AI summary): counted `not_present`. */
  | { type: 'not_present'; custodian: string; kind: string; sourceId: string; name: string; reason: string }
  /**
   * What the provider will not serve at all (Zoom's six-month Team Chat window): an exception with outcome
   * `provider_limit` in the unit's reconciliation, not counted in `listed` and not a failure (never retried).
   * Report it once per unit and run.
   */
  | { type: 'provider_limit'; custodian: string; kind: string; sourceId: string; name: string; reason: string }
  /** Pieces a custodian has that the filters leave out: counted `excluded` (listed, not collected). */
  | { type: 'excluded'; custodian: string; count: number }
  /**
   * A unit's state: `pending` announces a unit of this run (yield every unit as soon as it is known, so a run
   * stopped early can report the ones it never reached), `running` when its collection begins, `done` or
   * `failed` (a custodian-level stop, reported with an `error` of kind `custodian`) when it ends. An ending may carry
   * the checkpoint that follows it (`checkpoint`, as the `checkpoint` event's `state`): both are written at once.
   */
  | {
      type: 'unit';
      unit: UnitSpec;
      status: 'pending' | 'running' | 'done' | 'failed';
      checkpoint?: { state: unknown };
    }
  /** Everything yielded before is durable once the engine has handled this; a resumed run starts from `state`. */
  | { type: 'checkpoint'; state: unknown }
  /** Incremental cursors for the next run; kept only if the run completes. */
  | { type: 'cursors'; value: unknown }
  /**
   * Everything of this custodian and these kinds that still exists at the source (within the filters) has been
   * yielded as `item` events in this run, unchanged ones included (a full enumeration, not a change feed). The
   * engine treats every stored item of theirs that this run did not see as deleted at the source. Yield it only
   * when nothing was skipped: an item held back by an error would otherwise be taken for deleted.
   */
  /**
   * Still at the source, but outside the selection (the filters narrowed, or it moved out): what the collection
   * holds of it stays as collected and a complete listing never takes it for deleted at the source.
   */
  | { type: 'present'; custodian: string; kind: string; sourceId: string }
  | { type: 'listing_complete'; custodian: string; kinds: string[] };

/** A failed piece on a unit's retry list, handed back to Connector.retryPieces by a following run. */
export interface RetryPiece {
  unit: string;
  kind: string;
  sourceId: string;
  name: string;
  /** the `retry` value of the error event, or `{item}` for a download the engine could not complete */
  piece: unknown;
}

export interface ItemInput {
  kind: string;
  /** The provider's own id of the thing; unique per collection and kind. */
  sourceId: string;
  name: string;
  path: string;
  /** Provider user id of the person it was collected for. */
  custodian: string | null;
  /**
   * The custodian's name and e-mail at collection time (a Zoom channel: its name, no e-mail). Left out, the engine
   * fills them from the unit the item belongs to (UnitSpec `name`/`email`).
   */
  custodianName?: string | null;
  custodianEmail?: string | null;
  size?: number | null;
  mimeType?: string | null;
  createdAt?: string | null;
  modifiedAt?: string | null;
  /** Changes whenever the content changes (eTag, cTag, a timestamp). Same version + stored content = unchanged. */
  version?: string | null;
  /** Searchable text of items without content (chat messages, meeting metadata). */
  text?: string | null;
  metadata: Record<string, unknown>;
}

export interface Hasher {
  update(chunk: Uint8Array): unknown;
  digest(): Buffer | string;
}

export interface ContentSource {
  /**
   * Opens the bytes from `offset` (0 = the whole thing). Answer `partial: true` only when the body really starts
   * at `offset` (HTTP 206); otherwise the engine starts the blob over.
   */
  open(offset: number, signal: AbortSignal): Promise<{ body: Readable; partial: boolean }>;
  /**
   * A hash the provider states for the content, verified while streaming. `threaded` names the module and export
   * a hashing thread can build the same hasher from, so large files are not hashed on the event loop.
   */
  providerHash?: { type: string; value: string; create(): Hasher; threaded?: { module: string; exportName: string } };
  /** Sanity check on the first bytes (e.g. Zoom answers failures with 200 + an HTML page): a reason rejects them. */
  rejectIf?(firstChunk: Uint8Array): string | null;
}

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}
