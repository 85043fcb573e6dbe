// History is walked in calendar-month windows (UTC): Zoom's recordings list accepts at most one month between
// `from` and `to` (a wider range is silently cut to the last month), and Team Chat ranges are chunked the same
// way to be safe. A calendar month is never longer than "one month", whatever the month.

export const DAY_MS = 86_400_000;

export interface Window {
  /** Epoch ms, inclusive. */
  start: number;
  /** Epoch ms, inclusive. */
  end: number;
}

/** Month windows covering [from, to], oldest first. */
export function monthWindows(from: number, to: number): Window[] {
  const out: Window[] = [];
  let start = from;
  while (start <= to) {
    const d = new Date(start);
    const nextMonth = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    const end = Math.min(to, nextMonth - 1);
    out.push({ start, end });
    start = nextMonth;
  }
  return out;
}

/** `yyyy-mm-dd` (UTC), the recordings list's date format. */
export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** `yyyy-MM-dd'T'HH:mm:ss'Z'`, the Team Chat and summaries date-time format. Rounded down to the second. */
export function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Midnight UTC of the day holding `ms`. */
export function startOfDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** Epoch ms of an ISO date-time, or undefined. */
export function parseTime(value: unknown): number | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
