// Faults at rates, the way real providers fail: each request rolls a seeded die, so a run against the sandbox
// sees the same sequence of faults for the same seed and the same order of requests. Both simulators use it
// (sandbox/zoom and sandbox/microsoft decide what each fault looks like on their wire).
import type { ServerResponse } from 'node:http';
import { createRng, type Rng } from './zoom/prng.ts';

export interface FaultRates {
  seed: number;
  /** Share of requests answered 500 or 503 (half each) with `Retry-After`. */
  serverErrors?: number;
  /** Share answered 429: Zoom's X-RateLimit-* headers, Graph's fractional Retry-After. */
  tooMany?: number;
  /** Share whose connection is reset without an answer. */
  resets?: number;
  /** Share of download bodies cut short after the full Content-Length was promised. */
  cutBodies?: number;
  /** Share of download bodies that stop mid-body for `stallMs`, then go on (a provider that stalls). */
  stalledBodies?: number;
  stallMs?: number;
  /** Share of requests that start a 429 storm: this one and the next `stormLength - 1` answer 429. */
  storms?: number;
  stormLength?: number;
  /** The Retry-After of 500/503 answers, in seconds (default 1). */
  retryAfterSeconds?: number;
}

export type Fault = 'server_error' | 'too_many' | 'reset' | 'cut_body' | 'stalled_body';

export class FaultDice {
  private readonly rng: Rng;
  private storm = 0;
  /** Faults injected so far, by kind. */
  readonly counts: Record<Fault, number> = { server_error: 0, too_many: 0, reset: 0, cut_body: 0, stalled_body: 0 };
  /** Requests that rolled the die. */
  rolled = 0;

  constructor(readonly rates: FaultRates) {
    this.rng = createRng(rates.seed);
  }

  /** The fault this request suffers, if any; `download`: its body is content that can be cut or stalled. */
  roll(download: boolean): Fault | null {
    this.rolled += 1;
    const fault = this.pick(download);
    if (fault) this.counts[fault] += 1;
    return fault;
  }

  /** 500 or 503, half each (by the die). */
  serverStatus(): 500 | 503 {
    return this.rng.next() < 0.5 ? 500 : 503;
  }

  get retryAfterSeconds(): number {
    return this.rates.retryAfterSeconds ?? 1;
  }

  private pick(download: boolean): Fault | null {
    const r = this.rates;
    if (this.storm > 0) {
      this.storm -= 1;
      return 'too_many';
    }
    const x = this.rng.next();
    let edge = 0;
    const hit = (p: number | undefined) => x < (edge += p ?? 0);
    if (hit(r.storms)) {
      this.storm = Math.max(0, (r.stormLength ?? 10) - 1);
      return 'too_many';
    }
    if (hit(r.serverErrors)) return 'server_error';
    if (hit(r.tooMany)) return 'too_many';
    if (hit(r.resets)) return 'reset';
    if (download && hit(r.cutBodies)) return 'cut_body';
    if (download && hit(r.stalledBodies)) return 'stalled_body';
    return null;
  }
}

/**
 * Writes a download body under a body fault: `cut_body` sends half after the full Content-Length and resets the
 * socket; `stalled_body` sends half, waits `stallMs`, then the rest (if the client is still there). The status
 * line and headers must already be set on `res`.
 */
export function writeFaultedBody(
  res: ServerResponse,
  body: Buffer,
  fault: 'cut_body' | 'stalled_body',
  stallMs: number,
): void {
  const half = body.subarray(0, body.length >> 1);
  if (fault === 'cut_body') {
    res.write(half, () => res.destroy());
    return;
  }
  res.write(half);
  const timer = setTimeout(() => {
    if (!res.destroyed) res.end(body.subarray(half.length));
  }, stallMs);
  res.once('close', () => clearTimeout(timer));
}
