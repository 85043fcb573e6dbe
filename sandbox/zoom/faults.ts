/**
 * Fault switches. Mutate them at any time; counters are consumed one per matching request.
 *
 * API requests are those under /v2. Download requests are `download_url` (/rec/download/…) on the main
 * listener and the signed file URLs on the download origin.
 */
import type { FaultDice } from '../fault-rates.ts';

export interface ZoomFaults {
  /** Next N API requests answer 429 per-second (QPS) with Zoom's headers. */
  rate429Storm: number;
  /** Next N API requests answer 429 daily-limit, `Retry-After` = next 00:00 UTC as an ISO date-time. */
  dailyLimit429: number;
  /** 429s carry only X-RateLimit-Category/-Limit/-Remaining (no -Type, no Retry-After), as seen in the field. */
  omitRateLimitHeaders: boolean;
  /** Next N API requests fail, alternating 500 (Zoom JSON body) and 503 (HTML gateway page). */
  serverErrors: number;
  /** Next N API requests get their socket destroyed without any response. */
  resetConnections: number;
  /** Next N API requests answer 401 code 124 "Access token is expired." whatever the token's real expiry. */
  expireAccessTokens: number;
  /** Next N file-origin downloads send the full Content-Length, then half the body, then reset the socket. */
  truncateDownloads: number;
  /** Next N `download_url` requests answer 200 text/html (Zoom's failure page) instead of the 302. */
  htmlDownloadFailure: number;
  /** While true, every `next_page_token` is refused as expired (400 code 300). */
  expirePageTokens: boolean;
  /** Scopes taken away from every token: requests needing them fail as scope errors. */
  missingScopes: string[];
  /** Scope errors answer 401 code 124 instead of 400 code 4711 (both occur). */
  scopeErrorAs401: boolean;
  /** While set, every API request waits for this promise before it is answered: a provider that stalls. */
  stall: Promise<unknown> | null;
  /** How many API requests are waiting on `stall` now (read-only for tests). */
  stalled: number;
  /** Faults at rates (sandbox/fault-rates.ts) on API, `download_url` and file-host requests; null: none. */
  dice: FaultDice | null;
}

export function createFaults(): ZoomFaults {
  return {
    rate429Storm: 0,
    dailyLimit429: 0,
    omitRateLimitHeaders: false,
    serverErrors: 0,
    resetConnections: 0,
    expireAccessTokens: 0,
    truncateDownloads: 0,
    htmlDownloadFailure: 0,
    expirePageTokens: false,
    missingScopes: [],
    scopeErrorAs401: false,
    stall: null,
    stalled: 0,
    dice: null,
  };
}

type Counter = { [K in keyof ZoomFaults]: ZoomFaults[K] extends number ? K : never }[keyof ZoomFaults];

/** Consumes one unit of a counter; true when the fault fires for this request. */
export function take(faults: ZoomFaults, counter: Counter): boolean {
  if (faults[counter] > 0) {
    faults[counter] -= 1;
    return true;
  }
  return false;
}
