import {
  classifyStatus,
  isRecord,
  oauthErrorDetails,
  scalar,
  text,
  type ProviderQuirks,
} from '../../provider/quirks.ts';
import { headerValue } from '../../provider/retry.ts';

/**
 * Zoom's API answers errors as `{code, message}` (its OAuth host as `{reason, error}`), names the limit hit in
 * `X-RateLimit-Category` / `X-RateLimit-Type`, gives the reset in `X-RateLimit-Reset` (epoch seconds) and tags
 * every response with `x-zm-trackingid`.
 */
export const zoomQuirks: ProviderQuirks = {
  rateLimitHeaders: { category: 'x-ratelimit-category', reset: ['x-ratelimit-reset', 'ratelimit-reset'] },
  requestIdHeaders: ['x-zm-trackingid'],
  classifyError(status, headers, body) {
    const details =
      oauthErrorDetails(body) ?? (isRecord(body) ? { code: scalar(body.code), message: text(body.message) } : {});
    // The daily quota resets at 00:00 UTC; backing off for seconds would only burn attempts.
    const type = status === 429 ? headerValue(headers, 'x-ratelimit-type')?.trim().toLowerCase() : undefined;
    const daily = type === 'daily-limit';
    // A per-second limit Zoom states is paced under by the budget (learned-rate.ts): no pause of the credential.
    const paced = type === 'qps' && /^\s*\d+(\.\d+)?\s*$/.test(headerValue(headers, 'x-ratelimit-limit') ?? '');
    return {
      ...classifyStatus(status, headers),
      ...(daily && { resetsAtUtcMidnight: true }),
      ...(paced && { paced: true }),
      ...details,
    };
  },
};
