import { SeededRandom } from '../rng.ts';
import type { SandboxState } from '../state.ts';

/** Built-in directory role template ids (the same in every Entra tenant), as they appear in `wids`. */
export const ROLE_TEMPLATES = {
  globalAdministrator: '62e90394-69f5-4237-9190-012177145e10',
  privilegedRoleAdministrator: 'e8611ab8-c189-46e8-94e1-60213ab1f814',
  user: 'b79fbf4d-3ef9-4689-8143-76b194e85509',
  guestUser: '10dae51f-b6af-4016-8d66-8c2a99b929b3',
} as const;

/**
 * A second organisation: its Global Administrator can sign in (login_hint = their UPN), consent and get app
 * tokens for it, but it holds no data (Graph refuses its tokens). It stands in for "an admin of another tenant".
 */
export interface OtherTenant {
  id: string;
  domain: string;
  admin: { id: string; userPrincipalName: string; displayName: string };
}

/** Its own random stream, so adding it shifts none of the demo tenant's generated ids. */
export function otherTenantOf(seed: number): OtherTenant {
  const rng = new SeededRandom(seed ^ 0x0f4b1c);
  const domain = `fabrikam-sandbox-${seed}.onmicrosoft.com`;
  return {
    id: rng.guid(),
    domain,
    admin: { id: rng.guid(), userPrincipalName: `admin@${domain}`, displayName: 'Fabrikam Admin' },
  };
}

/** Whoever the authorize endpoint signed in, with what their tokens say about them. */
export interface SignedIn {
  tid: string;
  oid: string;
  name: string;
  upn: string;
  wids: string[];
}

/** users[0] of the demo tenant is its Global Administrator; the other members are plain users. */
export function signedInById(state: SandboxState, userId: string): SignedIn | undefined {
  const other = state.otherTenant;
  if (userId === other.admin.id) {
    return {
      tid: other.id,
      oid: other.admin.id,
      name: other.admin.displayName,
      upn: other.admin.userPrincipalName,
      wids: [ROLE_TEMPLATES.globalAdministrator, ROLE_TEMPLATES.user],
    };
  }
  const user = state.model.user(userId);
  if (!user) return undefined;
  const admin = user.id === state.model.tenant.users[0]?.id;
  const base = user.userType === 'Guest' ? ROLE_TEMPLATES.guestUser : ROLE_TEMPLATES.user;
  return {
    tid: state.model.tenant.id,
    oid: user.id,
    name: user.displayName,
    upn: user.userPrincipalName,
    wids: admin ? [ROLE_TEMPLATES.globalAdministrator, base] : [base],
  };
}

/** login_hint may name a member of the demo tenant or the other organisation's admin (by id or UPN). */
/** Without a (known) hint the demo tenant's admin signs in, as before there was a second organisation. */
export function signedInByHint(state: SandboxState, hint: string | undefined): SignedIn {
  const other = state.otherTenant.admin;
  if (hint && (hint.toLowerCase() === other.userPrincipalName.toLowerCase() || hint === other.id))
    return signedInById(state, other.id)!;
  const user = (hint ? state.model.user(hint) : undefined) ?? state.model.tenant.users[0];
  return signedInById(state, user.id)!;
}
