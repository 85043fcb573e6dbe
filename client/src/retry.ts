/** How long a 429 asks the caller to wait, in milliseconds: `Retry-After` as seconds or an HTTP date. */
export function retryAfterMs(res: Response, now: number, fallbackMs: number): number {
  const header = res.headers.get('retry-after')?.trim();
  if (!header) return fallbackMs;
  if (/^\d+$/.test(header)) return Number(header) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? fallbackMs : Math.max(0, date - now);
}

export const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
