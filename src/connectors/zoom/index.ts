import { validateConfFilters, type ConfFilters } from '../../domain/filters/conf.ts';
import type { BudgetConfig } from '../../provider/budget.ts';
import type { RetryConfig } from '../../provider/retry.ts';
import type { Connector } from '../types.ts';
import { collectZoom } from './collect.ts';
import { zoomWebhookEvents } from './webhook-events.ts';
import { zoomHostCheck } from './content.ts';
import { channelsHandler, usersHandler } from './discovery.ts';
import { KINDS } from './items.ts';
import { retryZoomPieces } from './retry.ts';
import { createZoomOAuth } from './oauth.ts';
import { checkOwnerIds } from './check-ids.ts';
import { zoomQuirks } from './quirks.ts';
import { missingScopes } from './scopes.ts';
import { zoomUnits } from './units.ts';

export interface ZoomConnectorOptions {
  clientId: string;
  clientSecret: string;
  /** https://zoom.us (Zoom for Government and tests use another host) */
  oauthUrl: string;
  /** https://api.zoom.us/v2 */
  apiUrl: string;
  /** How far back a first run reaches (ZOOM_LOOKBACK_DAYS). */
  lookbackDays: number;
  budget?: Partial<BudgetConfig>;
  retry?: Partial<RetryConfig>;
}

/**
 * Zoom meters every app of an account together, per second and per category (Business+: Light 80/s, Medium
 * 60/s). Nearly every call made here is Medium (user, recording, chat lists), so one budget stays under Medium's
 * 60/s: the slot budget (provider/shared-budget.ts) admits at most its rate in any one-second window, here 48.
 * Zoom states no limit on requests in flight; 16 leaves the API its rate while downloads from the file host (not
 * metered, each holding one of these) are under way: with 8, a run of long histories used 66–72 % of 60/s, 80–81 %
 * with 16 (docs/benchmarks.md, session 19). At 300 ms answers 16 in flight carry at most 53 a second: each process
 * starts at 16 and allows itself more while requests wait for a slot and the rate has room (lease-allowance.ts), the
 * fleet holding at most 64 (N worker processes start at up to 16 × N together).
 */
export const ZOOM_BUDGET: BudgetConfig = { ratePerSecond: 48, concurrency: 64, startConcurrency: 16 };

export const ZOOM_RETRY: RetryConfig = {
  maxAttempts: 6,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  // A daily-limit 429 asks to wait until 00:00 UTC: beyond this window the run fails and is retried later.
  giveUpAfterMs: 10 * 60_000,
};

export const ZOOM_USER_AGENT = 'Custody/0.1 (+https://custody.dev; zoom connector)';

export function createZoomConnector(opts: ZoomConnectorOptions): Connector {
  const trim = (url: string) => url.replace(/\/+$/, '');
  const apiUrl = trim(opts.apiUrl);
  const oauthUrl = trim(opts.oauthUrl);
  const isZoomHost = zoomHostCheck(oauthUrl, apiUrl);
  return {
    type: 'conf',
    configType: 'conf',
    kinds: KINDS,
    userAgent: ZOOM_USER_AGENT,
    limits: {
      // No rate configured: 48/s is a guess at the account's plan, found from below (slow start).
      budget: { ...ZOOM_BUDGET, slowStart: opts.budget?.ratePerSecond === undefined, ...opts.budget },
      retry: { ...ZOOM_RETRY, ...opts.retry },
    },
    quirks: zoomQuirks,
    oauth: createZoomOAuth({
      clientId: opts.clientId,
      clientSecret: opts.clientSecret,
      oauthUrl,
      apiUrl,
      userAgent: ZOOM_USER_AGENT,
    }),
    validateFilters: validateConfFilters,
    checkFilterIds: checkOwnerIds(apiUrl),
    missingPermissions: (grantInfo, filters) => missingScopes(grantInfo, filters as ConfFilters),
    discovery: { users: usersHandler(apiUrl), channels: channelsHandler(apiUrl) },
    collect: (ctx) => collectZoom(ctx, { apiUrl, lookbackDays: opts.lookbackDays, isZoomHost }),
    webhooks: zoomWebhookEvents,
    units: zoomUnits(apiUrl, opts.lookbackDays),
    retryPieces: retryZoomPieces({ apiUrl, isZoomHost }),
  };
}
