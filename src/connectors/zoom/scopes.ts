// Zoom granular scopes (`<product>:<action>:<resource>:admin`). Zoom takes the scopes from the Marketplace app's
// configuration, not from the authorize URL, so these lists document what the app must be given; each entry
// names the endpoint that needs it. The `:admin` variants are used because an eDiscovery pairing is made by an
// account owner or admin and reads every user's data.

/** Everything `collect` and discovery call. */
export const DEFAULT_SCOPES = [
  'user:read:list_users:admin', // GET /users (discovery, all-users collections)
  'user:read:user:admin', // GET /users/{userId} (selected owners, pairing facts)
  'cloud_recording:read:list_user_recordings:admin', // GET /users/{userId}/recordings
  'meeting:read:summary:admin', // GET /meetings/{uuid}/meeting_summary (AI meeting notes)
  'team_chat:read:list_user_channels:admin', // GET /chat/users/{userId}/channels
  'team_chat:read:list_user_sessions:admin', // GET /chat/users/{userId}/sessions (one-to-one peers)
  'team_chat:read:list_user_messages:admin', // GET /chat/users/{userId}/messages
] as const;

/**
 * `scopes_type=preservation` (legal-hold pairings): the default set plus what keeps evidence reachable after a
 * user deletes it or leaves: recordings in the trash and whole-account summaries (recording and summary lists),
 * Team Chat legal-hold matters and their exported files, and the chat reports that include edited and deleted
 * messages.
 */
export const PRESERVATION_SCOPES = [
  ...DEFAULT_SCOPES,
  'meeting:read:list_summaries:admin', // GET /meetings/meeting_summaries (summaries of meetings without recordings)
  'team_chat:read:list_legal_hold_matters:admin', // GET /chat/legalhold/matters
  'team_chat:read:list_legal_hold_matter_files:admin', // GET /chat/legalhold/matters/{matterId}/files
  'team_chat:read:legal_hold_matter_file:admin', // GET /chat/legalhold/matters/{matterId}/files/download
  'report:read:list_chat_sessions:admin', // GET /report/chat/sessions
  'report:read:chat_session:admin', // GET /report/chat/sessions/{sessionId} (include_fields=edited_messages,deleted_messages)
] as const;

export const SCOPE_SETS: Record<string, string[]> = {
  default: [...DEFAULT_SCOPES],
  preservation: [...PRESERVATION_SCOPES],
};
