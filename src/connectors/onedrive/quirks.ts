import {
  classifyStatus,
  isRecord,
  oauthErrorDetails,
  scalar,
  text,
  type ProviderQuirks,
} from '../../provider/quirks.ts';

/**
 * Graph answers errors as `{error: {code, message}}` (the Microsoft identity platform as OAuth
 * `{error, error_description}`), throttles with a 429 or a 503 and a Retry-After, and names each request in
 * `request-id` (`x-ms-request-id` on SharePoint downloads).
 */
export const graphQuirks: ProviderQuirks = {
  rateLimitHeaders: { reset: ['ratelimit-reset'] },
  requestIdHeaders: ['request-id', 'x-ms-request-id'],
  classifyError(status, headers, body) {
    const error = isRecord(body) ? body.error : undefined;
    const details = isRecord(error)
      ? { code: scalar(error.code), message: text(error.message) }
      : (oauthErrorDetails(body) ?? {});
    return { ...classifyStatus(status, headers), ...details };
  },
};
