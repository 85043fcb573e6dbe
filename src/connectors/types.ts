import type { Readable } from 'node:stream';
import type { BudgetConfig } from '../sync/budget.ts';
import type { ProviderHttp } from '../sync/provider-http.ts';
import type { RetryConfig } from '../sync/retry.ts';

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
  userAgent: string;
  /** Returns the problems of a sync_filters value, each with a JSON pointer; [] when valid. */
  validateFilters(filters: unknown): FilterIssue[];
  discovery: Partial<Record<DiscoveryKind, DiscoveryHandler>>;
  /** Pulls exactly what the filters allow. Resumable: see CollectContext.checkpoint. */
  collect(ctx: CollectContext): AsyncIterable<CollectEvent>;
  /** Item kinds this connector produces (documentation, validation of ?kind=). */
  kinds: readonly string[];
}

export interface FilterIssue {
  pointer: string;
  message: string;
}

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
  /** A fresh grant before expiry or after a 401 (a rotated refresh token included). Throws GrantRevokedError. */
  refresh(grant: Grant): Promise<Grant>;
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

/**
 * A failure that retrying cannot fix: a person must act (pair again, grant the app a missing scope). The message
 * says what to do; it is shown to the client as the collection's status_reason and in discovery errors, so it
 * must never contain a token or a secret. The engine moves the collection to `error` instead of retrying.
 */
export class NeedsUserActionError extends Error {
  override name = 'NeedsUserActionError';
}

/** Thrown by refresh when the provider refuses the grant for good (invalid_grant): the user must pair again. */
export class GrantRevokedError extends NeedsUserActionError {
  override name = 'GrantRevokedError';
}

/** A content source's first bytes are not the content (e.g. an HTML error page answered with 200). */
export class ContentRejectedError extends Error {
  override name = 'ContentRejectedError';
}

/** Thrown by completeCallback when the provider reports a failure the user should see. */
export class ProviderAuthError extends Error {
  constructor(public error: string, public description: string) {
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

/** Answers GET /collections/{id}/{kind}; throws AppError (domain/errors) for 400/404. */
export type DiscoveryHandler = (ctx: ProviderContext, query: Record<string, string | undefined>) => Promise<unknown>;

export interface CollectContext extends ProviderContext {
  collectionId: string;
  filters: unknown;
  /** The last `checkpoint` state this connector yielded in this run, when resuming after a crash; else null. */
  checkpoint: unknown;
  /** The `cursors` the previous successful run ended with (delta links, high-water marks); null on a first run. */
  cursors: unknown;
}

export type CollectEvent =
  | { type: 'item'; item: ItemInput; content?: ContentSource }
  /** The source deleted this item: tombstoned (auto) or only marked (arch) by the engine. */
  | { type: 'deleted'; kind: string; sourceId: string }
  /** A failure that does not stop the run (a deleted user, a missing drive, a bad file). */
  | { type: 'error'; reason: string; sourceId?: string; kind?: string }
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
  | { type: 'listing_complete'; custodian: string; kinds: string[] };

export interface ItemInput {
  kind: string;
  /** The provider's own id of the thing; unique per collection and kind. */
  sourceId: string;
  name: string;
  path: string;
  /** Provider user id of the person it was collected for. */
  custodian: string | null;
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
  /** A hash the provider states for the content, verified while streaming. */
  providerHash?: { type: string; value: string; create(): Hasher };
  /** Sanity check on the first bytes (e.g. Zoom answers failures with 200 + an HTML page): a reason rejects them. */
  rejectIf?(firstChunk: Uint8Array): string | null;
}

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}
