// What a ProviderHttp is built with and what its requests take and answer.
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { Clock } from './budget.ts';
import type { ProviderQuirks } from './quirks.ts';
import type { RetryConfig } from './retry.ts';
import type { Budget } from './shared-budget.ts';

export interface ProviderAuth {
  token(): Promise<string>;
  /** Called after an auth error with the token that was rejected; single-flight is the implementer's job. */
  refresh(rejected: string): Promise<string>;
  /**
   * The newest token this process holds, when it is not about to expire; no I/O, no refresh. A request that waited
   * for its budget slot sends this one if the token it read before the wait was replaced meanwhile.
   */
  current?(): string | undefined;
}

export interface ProviderHttpOptions {
  budget: Budget;
  retry: RetryConfig;
  /** The provider's headers and error bodies (the connector's `quirks`). */
  quirks: ProviderQuirks;
  auth?: ProviderAuth;
  userAgent: string;
  signal?: AbortSignal;
  log?: { warn(obj: object, msg: string): void };
  /** Whether a response means "the token was refused". Default: status 401. */
  isAuthError?(status: number, body: unknown): boolean;
  clock?: Clock;
  random?: () => number;
  dispatcher?: Dispatcher;
  /** Default 10. */
  maxRedirects?: number;
  /** How much of an error body is read. Default 64 KiB. */
  errorBodyLimit?: number;
  /** Largest JSON response accepted. Default 32 MiB. */
  jsonBodyLimit?: number;
  /**
   * How long a request may wait for its response headers (connecting included), and for each next piece of its
   * body. A provider that goes silent fails the attempt (a network error, retried), so a request never holds its
   * budget slot and its unit for ever. Defaults: 60 s each.
   */
  deadlines?: { headersMs?: number; bodyGapMs?: number };
  /** Told of every answer, wait the provider stated and piece of body received: the unit's progress (liveness). */
  onProgress?: () => void;
  /** Counts each answer by status and times each wait for the budget. */
  metrics?: { request(status: string): void; budgetWait(seconds: number): void };
}

export interface JsonRequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** Sent as application/x-www-form-urlencoded. */
  form?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** Send the bearer token (default true when the client has auth). */
  auth?: boolean;
  /** Budget units this request costs (default 1), e.g. SharePoint resource units. */
  cost?: number;
  signal?: AbortSignal;
}

export interface StreamRequestOptions {
  headers?: Record<string, string>;
  auth?: boolean;
  /** Asks for the bytes from `start` on; the server may ignore it and answer 200 with everything. */
  range?: { start: number };
  cost?: number;
  signal?: AbortSignal;
}

export interface StreamResponse {
  status: number;
  headers: Record<string, string>;
  /** The budget's concurrency slot is held until this stream closes: consume or destroy it. */
  body: Readable;
  finalUrl: string;
}
