import type { SandboxKeys } from './crypto.ts';
import type { OtherTenant } from './identity/directory.ts';
import type { TenantModel } from './model.ts';
import type { SeededRandom } from './rng.ts';
import type { ResourceUnitBudget } from './throttle.ts';
import type { MsFaults, MsRequestRecord } from './types.ts';
import type { MsVariance } from './variance.ts';

export interface AuthCodeGrant {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  userId: string;
  nonce?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  expiresAt: number;
  redeemed: boolean;
}

export interface RefreshGrant {
  clientId: string;
  userId: string;
  scopes: string[];
  expiresAt: number;
  revoked: boolean;
}

export interface DeltaSession {
  driveId: string;
  /** Item ids of this round, in emission order (snapshotted when the round starts). */
  ids: string[];
  /** Drive change sequence the round's deltaLink resumes from. */
  watermark: number;
  pageSize: number;
  select?: string;
}

export interface SandboxState {
  clientId: string;
  clientSecret: string;
  redirectUris?: string[];
  now: () => Date;
  tokenLifetimeSeconds?: number;
  downloadUrlLifetimeSeconds: number;
  deltaPageSize: number;
  deltaAuthors: 'include' | 'omit' | 'vary';
  seed: number;
  model: TenantModel;
  keys: SandboxKeys;
  faults: MsFaults;
  consentedTenants: Set<string>;
  denyConsent: boolean;
  otherTenant: OtherTenant;
  /** The app registration's groupMembershipClaims includes directory roles, so id tokens carry `wids`. */
  directoryRoleClaims: boolean;
  /** The application permissions the app registration holds (app-only tokens' `roles`). */
  appRoles: string[];
  authCodes: Map<string, AuthCodeGrant>;
  refreshTokens: Map<string, RefreshGrant>;
  deltaSessions: Map<string, DeltaSession>;
  requests: MsRequestRecord[];
  budget: ResourceUnitBudget;
  /** Separate stream from the data seed so token lifetimes never shift generated ids. */
  lifetimeRng: SeededRandom;
  loginUrl: string;
  graphUrl: string;
  downloadOrigin: string;
  /** The variance profile, when the sandbox was started with one. */
  variance?: MsVariance;
}

export const GRAPH_RESOURCE = 'https://graph.microsoft.com';
export const GRAPH_APP_ID = '00000003-0000-0000-c000-000000000000';
export const APP_ROLES = ['Files.Read.All', 'User.Read.All'];
/**
 * Graph's permission table for driveItem subscriptions on OneDrive for Business lists only Files.ReadWrite.All
 * (../shared/reference/microsoft-graph-api.md, Correction G1): without it POST /subscriptions answers 403.
 */
export const SUBSCRIPTION_ROLE = 'Files.ReadWrite.All';
export const MAX_DELTA_SESSIONS = 2000;
/**
 * The request log keeps the most recent entries only (10,000 to 11,000), so a long-running sandbox does not grow
 * without bound.
 */
export const MAX_REQUEST_RECORDS = 10_000;

export function recordRequest(state: SandboxState, record: MsRequestRecord): void {
  state.requests.push(record);
  // trimmed a tenth at a time: trimming one record per request moved the whole log every time (a tenth of a
  // millisecond a request at 10,000 records)
  if (state.requests.length > MAX_REQUEST_RECORDS * 1.1)
    state.requests.splice(0, state.requests.length - MAX_REQUEST_RECORDS);
}

export function nowSeconds(state: SandboxState): number {
  return Math.floor(state.now().getTime() / 1000);
}

export function accessTokenLifetime(state: SandboxState): number {
  return state.tokenLifetimeSeconds ?? state.lifetimeRng.int(3600, 5399);
}
