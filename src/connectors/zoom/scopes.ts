// Zoom scopes (../shared/reference/zoom-api.md §1.5 and Correction Z7). Zoom takes an app's scopes from its
// Marketplace configuration, not from the authorize URL, and returns the granted ones with each token (`scope`,
// space-separated); the grant keeps them. Every endpoint needs its granular scope
// (`<product>:<action>:<resource>:admin`, new apps) or the legacy macro scope of its area (older apps), else Zoom
// answers 400 code 4711. The `:admin` variants are used because an eDiscovery pairing is made by an account owner
// or admin and reads every user's data.
import { chatScope, enabledContent, type ConfFilters } from '../../domain/filters/conf.ts';
import type { PermissionGap } from '../types.ts';
import { ZoomScopeError } from './api.ts';

/** One scope an endpoint in use needs, the legacy scopes that grant it on older apps, and the endpoint. */
interface ScopeNeed {
  scope: string;
  legacy: string[];
  endpoint: string;
}

const NEEDS = {
  listUsers: { scope: 'user:read:list_users:admin', legacy: ['user:read:admin'], endpoint: 'GET /users' },
  getUser: { scope: 'user:read:user:admin', legacy: ['user:read:admin'], endpoint: 'GET /users/{userId}' },
  listRecordings: {
    scope: 'cloud_recording:read:list_user_recordings:admin',
    legacy: ['recording:read:admin'],
    endpoint: 'GET /users/{userId}/recordings (trash included)',
  },
  meetingRecordings: {
    scope: 'cloud_recording:read:list_recording_files:admin',
    legacy: ['recording:read:admin'],
    endpoint: 'GET /meetings/{meetingUUID}/recordings',
  },
  listSummaries: {
    scope: 'meeting:read:list_summaries:admin',
    legacy: ['meeting_summary:read:admin', 'meeting:read:admin'],
    endpoint: 'GET /meetings/meeting_summaries',
  },
  getSummary: {
    scope: 'meeting:read:summary:admin',
    legacy: ['meeting_summary:read:admin', 'meeting:read:admin'],
    endpoint: 'GET /meetings/{meetingUUID}/meeting_summary',
  },
  listChannels: {
    scope: 'team_chat:read:list_user_channels:admin',
    legacy: ['chat_channel:read:admin'],
    endpoint: 'GET /chat/users/{userId}/channels',
  },
  listSessions: {
    scope: 'team_chat:read:list_user_sessions:admin',
    legacy: ['chat_message:read:admin'],
    endpoint: 'GET /chat/users/{userId}/sessions',
  },
  listMessages: {
    scope: 'team_chat:read:list_user_messages:admin',
    legacy: ['chat_message:read:admin'],
    endpoint: 'GET /chat/users/{userId}/messages',
  },
  reportSessions: {
    scope: 'report:read:list_chat_sessions:admin',
    legacy: ['report_chat:read:admin', 'imchat:read:admin'],
    endpoint: 'GET /report/chat/sessions',
  },
  reportSession: {
    scope: 'report:read:chat_session:admin',
    legacy: ['report_chat:read:admin', 'imchat:read:admin'],
    endpoint: 'GET /report/chat/sessions/{sessionId} (include_fields=edited_messages,deleted_messages)',
  },
  legalHoldMatters: {
    scope: 'team_chat:read:list_legal_hold_matters:admin',
    legacy: ['chat_history_legal_hold:read:admin'],
    endpoint: 'GET /chat/legalhold/matters',
  },
  legalHoldFiles: {
    scope: 'team_chat:read:list_legal_hold_matter_files:admin',
    legacy: ['chat_history_legal_hold:read:admin'],
    endpoint: 'GET /chat/legalhold/matters/{matterId}/files',
  },
  legalHoldDownload: {
    scope: 'team_chat:read:legal_hold_matter_file:admin',
    legacy: ['chat_history_legal_hold:read:admin'],
    endpoint: 'GET /chat/legalhold/matters/{matterId}/files/download',
  },
} satisfies Record<string, ScopeNeed>;

const holds = (granted: Set<string>, need: ScopeNeed) =>
  granted.has(need.scope) || need.legacy.some((s) => granted.has(s));

/**
 * Whether the grant holds the chat reports' scopes (a `preservation` app): then edited and deleted Team Chat
 * messages are read from the reports too (chat-reports.ts). A feature the grant switches on, not the filters: a
 * grant without them (or one that does not say) simply does not ask for the reports, so it is never a gap.
 */
export function reportsGranted(grantInfo: Record<string, unknown>): boolean {
  const granted = grantedScopes(grantInfo);
  return !!granted && holds(granted, NEEDS.reportSessions) && holds(granted, NEEDS.reportSession);
}

/** Whether the grant holds the Team Chat legal-hold scopes (a `preservation` app): see legal-hold.ts. Like reportsGranted. */
export function legalHoldGranted(grantInfo: Record<string, unknown>): boolean {
  const granted = grantedScopes(grantInfo);
  return (
    !!granted &&
    [NEEDS.legalHoldMatters, NEEDS.legalHoldFiles, NEEDS.legalHoldDownload].every((need) => holds(granted, need))
  );
}

/** Everything `collect`, its retries and discovery call: participant audio and the summaries list included. */
export const DEFAULT_SCOPES = [
  NEEDS.listUsers.scope, // discovery, all-owners collections
  NEEDS.getUser.scope, // selected owners, their check at PATCH
  NEEDS.listRecordings.scope, // recordings, trash included (`trash=true`)
  NEEDS.meetingRecordings.scope, // participant audio files (`audio`)
  NEEDS.listSummaries.scope, // AI summaries of every meeting, recorded or not (`AI-meeting-notes`)
  NEEDS.getSummary.scope, // one summary
  NEEDS.listChannels.scope,
  NEEDS.listSessions.scope, // one-to-one peers
  NEEDS.listMessages.scope,
] as const;

/**
 * `scopes_type=preservation` (legal-hold pairings): the default set plus the chat reports that include edited and
 * deleted messages and Team Chat legal-hold matters and their exported files, each collected when granted
 * (reportsGranted, legalHoldGranted).
 */
export const PRESERVATION_SCOPES = [
  ...DEFAULT_SCOPES,
  NEEDS.legalHoldMatters.scope,
  NEEDS.legalHoldFiles.scope,
  NEEDS.legalHoldDownload.scope,
  NEEDS.reportSessions.scope, // GET /report/chat/sessions
  NEEDS.reportSession.scope, // GET /report/chat/sessions/{sessionId} (include_fields=edited_messages,deleted_messages)
] as const;

export const SCOPE_SETS: Record<string, string[]> = {
  default: [...DEFAULT_SCOPES],
  preservation: [...PRESERVATION_SCOPES],
};

/** What a feature of the filters needs, with the filters' JSON pointer that switches it on. */
interface FeatureNeed {
  feature: string;
  pointer: string;
  needs: ScopeNeed[];
}

/** The scopes valid conf filters make a run use, by feature (every request of collect and retry is here). */
export function featureNeeds(filters: ConfFilters): FeatureNeed[] {
  const content = enabledContent(filters);
  const chats = chatScope(filters);
  const out: FeatureNeed[] = [
    {
      feature: 'meetings and their recordings',
      pointer: '/account_owners',
      needs: [filters.account_owners.all_selected ? NEEDS.listUsers : NEEDS.getUser, NEEDS.listRecordings],
    },
  ];
  if (content.has('audio'))
    out.push({
      feature: 'participant audio (content "audio")',
      pointer: '/content_selections',
      needs: [NEEDS.meetingRecordings],
    });
  if (content.has('AI-meeting-notes')) {
    out.push({
      feature: 'AI meeting notes (content "AI-meeting-notes")',
      pointer: '/content_selections',
      needs: [NEEDS.listSummaries, NEEDS.getSummary],
    });
  }
  if (chats.oneToOne)
    out.push({ feature: 'one-to-one chats', pointer: '/chats', needs: [NEEDS.listSessions, NEEDS.listMessages] });
  if (chats.channels)
    out.push({ feature: 'chat channels', pointer: '/chats', needs: [NEEDS.listChannels, NEEDS.listMessages] });
  return out;
}

/** The granted scopes of a grant (Zoom's `scope`, space-separated), or undefined when it does not say. */
export function grantedScopes(grantInfo: Record<string, unknown>): Set<string> | undefined {
  const raw = grantInfo.scope;
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  return new Set(raw.split(/[\s,]+/).filter(Boolean));
}

/**
 * Scopes the filters need that the grant lacks, each naming the feature it serves; undefined when the grant does
 * not say which scopes it holds (a grant paired before they were kept): then the run finds out.
 */
export function missingScopes(grantInfo: Record<string, unknown>, filters: ConfFilters): PermissionGap[] | undefined {
  const granted = grantedScopes(grantInfo);
  if (!granted) return undefined;
  const gaps: PermissionGap[] = [];
  for (const f of featureNeeds(filters)) {
    for (const need of f.needs) {
      if (holds(granted, need)) continue;
      if (gaps.some((g) => g.permission === need.scope)) continue;
      gaps.push({
        permission: need.scope,
        feature: f.feature,
        pointer: f.pointer,
        message:
          `the paired Zoom app was not granted the scope ${need.scope} (on older apps: ${need.legacy.join(' or ')}), which ${f.feature} ` +
          `needs (${need.endpoint}): add it to the app in the Zoom App Marketplace, then pair the collection again`,
      });
    }
  }
  return gaps;
}

/**
 * Before a run asks Zoom anything: a grant that lacks a scope the filters use stops the collection (status
 * `error`, the reason naming the scope and the feature) instead of failing request by request.
 */
export function assertScopes(grantInfo: Record<string, unknown>, filters: ConfFilters): void {
  const gaps = missingScopes(grantInfo, filters) ?? [];
  if (gaps.length === 0) return;
  const more =
    gaps.length > 1
      ? ` (and ${gaps.length - 1} more: ${gaps
          .slice(1)
          .map((g) => g.permission)
          .join(', ')})`
      : '';
  throw new ZoomScopeError(`${gaps[0].message}${more}`);
}
