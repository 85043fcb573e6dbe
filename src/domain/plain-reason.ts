/**
 * Reasons shown to people (reconciliation exceptions, run errors, a collection's status_reason) never carry the
 * provider's URLs: `GET http://…/v2/meetings/…/meeting_summary failed: HTTP 404 is not retryable` reads
 * "Zoom answered 404 for the meeting summary". The full text stays in the logs, under the run's correlation id.
 */
const REQUEST = /\b(?:GET|POST|PUT|PATCH|DELETE|HEAD) (https?:\/\/[^\s]+) (failed: |returned |aborted)([^;()]*)/g;
const ANY_URL = /\bhttps?:\/\/[^\s"'<>)]+/g;
// A word of a path (`meetings`, `meeting_summary`, `drive`), not an id (digits, base64, uuid).
const WORD = /^[A-Za-z][A-Za-z_-]*$/;

function providerOf(url: URL): string {
  if (/(^|\.)zoom\.us$/i.test(url.hostname) || /^\/v2(\/|$)/.test(url.pathname)) return 'Zoom';
  if (/(^|\.)graph\.microsoft\.com$/i.test(url.hostname) || /^\/(v1\.0|beta)(\/|$)/.test(url.pathname))
    return 'Microsoft Graph';
  if (/(^|\.)login\.microsoftonline\.com$/i.test(url.hostname)) return 'Microsoft sign-in';
  return 'The provider';
}

function resourceOf(url: URL): string {
  const words = url.pathname.split('/').filter((s) => WORD.test(s) && !/^v\d/.test(s));
  const last = words.at(-1);
  return last ? `the ${last.replace(/[_-]+/g, ' ')}` : 'its address';
}

function requestReason(urlText: string, verb: string, rest: string): string {
  let url: URL;
  try {
    url = new URL(urlText);
  } catch {
    return 'a provider request failed';
  }
  const who = providerOf(url);
  const what = resourceOf(url);
  if (verb === 'aborted') return `the request to ${who} for ${what} was stopped`;
  const status = /HTTP (\d{3})/.exec(rest)?.[1];
  const tail = rest.replace(/HTTP \d{3}(?: is not retryable)?/, '').replace(/^[\s:]+|[\s:]+$/g, '');
  const head = status ? `${who} answered ${status} for ${what}` : `the request to ${who} for ${what} failed`;
  return tail ? `${head} (${tail})` : head;
}

export function plainReason(reason: string): string {
  return reason
    .replace(
      REQUEST,
      (_all, url: string, verb: string, rest: string) =>
        requestReason(url, verb.trim().replace(/:$/, ''), rest) + /\s*$/.exec(rest)![0],
    )
    .replace(ANY_URL, 'a provider address');
}
