import crypto from 'node:crypto';
import { randomToken, safeEqual, sha256Hex, type Sealer } from '../domain/seal.ts';
import type { PairingRepo } from '../store/pairings.ts';

/**
 * The `state` handed to a provider during pairing: `<base64url(JSON)>.<HMAC>`. It binds the account, the
 * collection type, the `redirect_to`, the client's own state and, in a flow of several provider steps, what the
 * earlier steps established (`carry`); it expires, and is single use through the hash of its nonce in
 * oauth_states. The PKCE code_verifier is an HMAC of the nonce, so nothing secret is stored and only this
 * server can recompute it when the provider sends the browser back.
 */
export interface StateBinding {
  accountId: string;
  type: string;
  redirectTo: string;
  clientState?: string;
  /** Facts a connector established in an earlier step of the same flow (signed, not encrypted). */
  carry?: Record<string, string>;
}

export interface VerifiedState extends StateBinding {
  codeVerifier: string;
}

/** Bounds on `carry`: it rides in a URL. */
const MAX_CARRY_KEYS = 16;
const MAX_CARRY_CHARS = 2048;

export type StateFailure = 'missing' | 'invalid' | 'expired' | 'used';

export class OAuthStateError extends Error {
  override name = 'OAuthStateError';
  constructor(public reason: StateFailure) {
    super(MESSAGES[reason]);
  }
}

const MESSAGES: Record<StateFailure, string> = {
  missing: 'the state parameter is missing: start the authorization again.',
  invalid: 'the state parameter is invalid: it was not issued by this server for this collection type.',
  expired: 'the authorization took too long and its state expired: start the authorization again.',
  used: 'this authorization state was already used: start the authorization again.',
};

interface Payload {
  v: 1;
  a: string;
  t: string;
  r: string;
  s?: string;
  c?: Record<string, string>;
  n: string;
  /** expiry, epoch milliseconds */
  e: number;
}

export const STATE_TTL_MS = 10 * 60_000;

export interface OAuthStatesOptions {
  sealer: Sealer;
  pairings: PairingRepo;
  clock?: () => Date;
  ttlMs?: number;
}

export interface OAuthStates {
  issue(binding: StateBinding): Promise<{ state: string; codeChallenge: string; expiresAt: Date }>;
  /** Verifies and burns the state; throws OAuthStateError. */
  consume(state: string | undefined, type: string): Promise<VerifiedState>;
}

export function createOAuthStates(opts: OAuthStatesOptions): OAuthStates {
  const clock = opts.clock ?? (() => new Date());
  const ttlMs = opts.ttlMs ?? STATE_TTL_MS;
  const mac = (body: string) => opts.sealer.sign(`oauth-state:v1:${body}`);
  const verifierOf = (nonce: string) => opts.sealer.sign(`oauth-pkce:v1:${nonce}`);

  return {
    async issue(binding) {
      const nonce = randomToken(18);
      const expiresAt = new Date(clock().getTime() + ttlMs);
      const payload: Payload = {
        v: 1,
        a: binding.accountId,
        t: binding.type,
        r: binding.redirectTo,
        n: nonce,
        e: expiresAt.getTime(),
      };
      if (binding.clientState !== undefined) payload.s = binding.clientState;
      if (binding.carry !== undefined) {
        if (!isCarry(binding.carry)) throw new Error('a state carry must be a small object of strings');
        payload.c = binding.carry;
      }
      const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
      await opts.pairings.recordState({
        nonceHash: sha256Hex(nonce),
        accountId: binding.accountId,
        type: binding.type,
        expiresAt: expiresAt.toISOString(),
      });
      return { state: `${body}.${mac(body)}`, codeChallenge: pkceChallenge(verifierOf(nonce)), expiresAt };
    },

    async consume(state, type) {
      if (!state) throw new OAuthStateError('missing');
      const payload = decode(state, mac);
      if (!payload || payload.t !== type) throw new OAuthStateError('invalid');
      const now = clock();
      if (payload.e <= now.getTime()) throw new OAuthStateError('expired');
      const fresh = await opts.pairings.useState({
        nonceHash: sha256Hex(payload.n),
        accountId: payload.a,
        type,
        now: now.toISOString(),
      });
      if (!fresh) throw new OAuthStateError('used');
      const verified: VerifiedState = {
        accountId: payload.a,
        type: payload.t,
        redirectTo: payload.r,
        clientState: payload.s,
        codeVerifier: verifierOf(payload.n),
      };
      if (payload.c !== undefined) verified.carry = payload.c;
      return verified;
    },
  };
}

/** RFC 7636 S256: base64url(SHA-256(verifier)). */
export function pkceChallenge(verifier: string): string {
  return crypto.createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

function decode(state: string, mac: (body: string) => string): Payload | undefined {
  const dot = state.indexOf('.');
  if (dot <= 0 || state.length > 8192) return undefined;
  const body = state.slice(0, dot);
  if (!safeEqual(state.slice(dot + 1), mac(body))) return undefined;
  try {
    const p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Partial<Payload>;
    const valid =
      p.v === 1 &&
      typeof p.a === 'string' &&
      typeof p.t === 'string' &&
      typeof p.r === 'string' &&
      typeof p.n === 'string' &&
      typeof p.e === 'number' &&
      (p.s === undefined || typeof p.s === 'string') &&
      (p.c === undefined || isCarry(p.c));
    return valid ? (p as Payload) : undefined;
  } catch {
    return undefined;
  }
}

function isCarry(value: unknown): value is Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const entries = Object.entries(value);
  return (
    entries.length <= MAX_CARRY_KEYS &&
    entries.every(([, v]) => typeof v === 'string') &&
    JSON.stringify(value).length <= MAX_CARRY_CHARS
  );
}
