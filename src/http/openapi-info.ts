/** The OpenAPI document's header: where the spec says "not shown", the decision is written down here. */
export function openapiInfo(publicUrl: string) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Custody collection sync API',
      version: '1.0.0',
      description: DESCRIPTION,
      // The repository grants no licence; LicenseRef- is SPDX's form for a licence without a standard identifier.
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: publicUrl }],
    components: {
      securitySchemes: {
        bearer: { type: 'http' as const, scheme: 'bearer', description: 'An access token from POST /v1/oauth/token.' },
      },
    },
    security: [{ bearer: [] }],
    tags: [
      { name: 'auth', description: 'Service tokens' },
      { name: 'workspaces', description: 'Workspaces (matters) that group collections' },
      { name: 'wallets', description: 'Credential wallets a collection is paired through (never any secret)' },
      { name: 'collections', description: 'Collections: sync filters, status, runs and their live event stream' },
      { name: 'pairing', description: 'Third-party OAuth2 pairing' },
      { name: 'discovery', description: 'Users, channels and folders of the connected source' },
      { name: 'items', description: 'Collected content, runs and the chain-of-custody manifest' },
      { name: 'search', description: 'Full-text search over collected content' },
      { name: 'legalhold', description: 'Legal holds that keep collected content from deletion' },
      { name: 'audit', description: "The account's append-only audit log" },
      { name: 'webhooks', description: 'Provider change events (called by Zoom and Microsoft Graph)' },
      {
        name: 'webhook_endpoints',
        description: 'Outbound, signed notifications of finished runs, collections needing action and legal holds',
      },
    ],
  };
}

const DESCRIPTION = `
Custody copies exactly what a collection's sync filters allow from Zoom (\`conf\`) or OneDrive for Business
(\`edrive\`) into a verified, content-addressed store, and keeps it in step.

## Rate limits

600 requests/min per access token for every endpoint without its own limit; \`POST /v1/oauth/token\` 30/min per
\`client_id\` (failed attempts count); \`POST /v1/search\` 300/min per token in its own budget; nothing under
\`/v1/legalhold/\` is limited; requests without a valid token get 401 and are not counted. Successful responses carry
\`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\`; a 429 carries \`Retry-After\` (whole seconds).

## Design notes

Decisions taken where the specification says "not shown".

- **First token.** \`POST /v1/oauth/token\` with \`grant_type=client_credentials\`, \`client_id\`, \`client_secret\`
  (created with \`bin/custody admin create-client\`) returns \`{access_token, token_type, expires_in, refresh_token}\`.
  \`grant_type=refresh_token\` rotates: the old refresh token stops working, and presenting a rotated one again
  revokes the whole token family (OAuth 2.0 Security BCP reuse detection). Token errors follow RFC 6749 §5.2. The
  client may authenticate with HTTP Basic instead (\`client_secret_basic\`); the body is a form, never JSON. Standard
  clients discover all this from the RFC 8414 metadata at \`/.well-known/oauth-authorization-server\`.
- **Headers.** Every answer carries \`X-Correlation-ID\`; the statuses the server's edge can give (malformed or slow
  requests, bodies too large or of another media type, internal errors) are declared on every operation they apply to.
- **Roles.** An account is a tenant; every API client of an account has full access to the account's objects.
  An id belonging to another account answers 404 exactly like an unknown id.
- **Errors.** Every non-2xx response (except the token endpoint) has the spec's 429 body shape:
  \`{code: "00<status>_<snake_title>", id, title, detail, links: {about}, source: null | {pointer}}\`.
  \`id\` equals the \`X-Correlation-ID\` header, which every response carries (a well-formed incoming one is echoed).
  Malformed requests answer 400; filters that break the rules of their collection type answer 422 with a JSON
  pointer; unknown or foreign ids 404; conflicts 409, with a code per cause:
  \`00409_conflict\` the collection's credentials must be paired (again); \`00409_legal_hold\` a legal hold covers
  what would be deleted; \`00409_invalid_status\` the collection's status
  does not allow it; \`00409_not_ready\` sync_filters or credentials are not saved yet;
  \`00409_concurrent_change\` another request changed the collection meanwhile (try again).
  \`00409_run_ended\` the run has already ended (cancelling a finished run). \`00409_in_use\` a collection still uses
  the wallet being deleted. \`00409_hold_released\` the legal hold was released already.
- **Read representations.** \`GET /v1/workspaces\`, \`/v1/workspaces/{id}\`, \`/v1/workspaces/{id}/collections\`,
  \`/v1/wallet/{id}\` (never any secret) and \`/v1/collections/{id}\`. Lists page with an opaque \`cursor\`.
- **Wallets for edrive.** \`POST /v1/wallet\` with \`config_type: "edrive"\` (and \`"conf"\` for Zoom); a collection's
  wallet must have the collection's type as its \`config_type\`.
- **PATCH.** All fields optional; \`sync_filters\` replaces the previous value entirely; \`type_sync\` defaults to
  \`one\`; \`sync_status\` accepts only \`pending\`, which queues a run and requires filters (saved now or before).
- **start.** 200 with \`{run_id, sync_status, created}\`; a start while a run is active returns that run
  (\`created: false\`). 409 when filters or paired credentials are missing.
- **DELETE.** 204 with no body; deleting again answers 404. Deletion cancels a running sync first, removes
  filters, items, runs and every stored blob no other collection references. A legal hold makes it 409.
- **edrive authorization URL.** 200 \`{authorization_url}\`: a Microsoft sign-in URL. The tenant administrator
  signs in first (authorization code + PKCE; the id_token is verified and must carry an admin role), then gives
  admin consent for that same tenant; the pairing is bound to the tenant of the person who signed in, so a forged
  callback naming another tenant is refused. For \`conf\` the answer is a 302 to Zoom. The redirect back to \`redirect_to\` carries \`code\` (the one-time pairing code for
  \`pair_credentials?auth_code=\`) and the client's \`state\`, or \`error\` and \`error_description\`.
- **Paging of edrive users and folders.** Users: \`limit\` (default 100, max 999, clamped) and \`marker\` (the previous
  \`next_marker\`). Folders: \`cursor\` (the previous \`_next\`, an opaque string). \`size\` is in bytes.
- **Sync statuses.** \`created\` (no filters yet), \`pending\` (queued), \`syncing\`, \`synced\`, \`failed\` (transient,
  retried automatically with backoff), \`error\` (needs user action, e.g. pair again; \`status_reason\` says why).
`;
