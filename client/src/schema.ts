// Generated from docs/openapi.json by openapi-typescript (`npm run openapi`). Do not edit.

export interface paths {
    "/.well-known/oauth-authorization-server": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * OAuth 2.0 authorization server metadata (RFC 8414)
         * @description Where standard OAuth clients discover the token endpoint and how to authenticate to it.
         */
        get: operations["getAuthorizationServerMetadata"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The account's audit log
         * @description Newest first. Every state-changing API call (create, patch, start, pair, delete, hold, release, token issue,
         *     refresh and revocation), every content download (each answered request, range requests included), every manifest
         *     and reconciliation export, and every sync run's start and finish is recorded once, with its outcome; secrets never
         *     are. Calls refused with 401 (no known caller) or 429 (never processed) are not recorded. The log is append-only:
         *     no API edits or deletes an entry, and deleting a workspace or collection keeps its trail.
         *     Actions: workspace.create, workspace.delete, wallet.create, wallet.delete, collection.create, collection.update, collection.start,
         *     collection.pair, collection.delete, legalhold.create, legalhold.release, token.issue, token.refresh, token.revoke,
         *     content.download, manifest.export, reconciliation.export, run.start, run.finish, export.create, export.download,
         *     export.finish, export.cancel.
         *     Entries form tamper-evident chains (one per collection, one per account): see GET /v1/audit/verification.
         */
        get: operations["listAudit"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit/verification": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Verify the audit chains
         * @description Recomputes every entry's hash and checks each chain's positions and links, and that every head recorded elsewhere (the chain's head, each export's signed `audit_head`) is still there. Without `collection_id`: every chain of the account; `head_hash` is then the account chain's head.
         */
        get: operations["getAuditVerification"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/collections": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the account's collections
         * @description Oldest first, paged with `cursor`; the filters combine (AND). An unknown workspace simply matches nothing.
         */
        get: operations["listCollections"];
        put?: never;
        /** Create a collection in a workspace, bound to a wallet */
        post: operations["createCollection"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/collections/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a collection */
        get: operations["getCollection"];
        put?: never;
        post?: never;
        /**
         * Delete a collection (permanent)
         * @description Cancels a running sync, then removes filters, items, runs and every blob no other collection references. 409 while a legal hold covers it. From the moment the deletion starts the collection answers 404 everywhere (a second DELETE, its items, starting it, a new legal hold naming it); a server stopped midway finishes the deletion when it starts again.
         */
        delete: operations["deleteCollection"];
        options?: never;
        head?: never;
        /**
         * Save sync filters, the sync type, and/or queue a sync
         * @description `sync_filters` replaces the previous value entirely (no merge). `sync_status` accepts only `pending`: it queues a run and needs filters (saved in this request or before); in any state. While a run is going, that run keeps the filters it started with and the sync asked for starts when it ends (unless it ends in `error`, which needs a person first, or is cancelled); `latest_run` shows it as soon as it is queued. 422 with a JSON pointer when the filters break the rules of the collection type: for `edrive`, `{}` (nothing selected), keys that are not user ids (`account_owners`, …), user ids the paired tenant does not have and folder ids not in that user’s drive (when the tenant can be asked; otherwise the run reports such a user as a failed custodian); for `conf`, owner ids the paired Zoom account does not have (same rule), and filters that need a scope the paired Zoom app was not granted (the message names the scope and the feature).
         */
        patch: operations["patchCollection"];
        trace?: never;
    };
    "/v1/collections/{id}/channels": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the chat channels a user belongs to (`conf` only)
         * @description Follow `next_page_token` (as `offset`) until it is null. 400 for other collection types, 404 for an unknown user, 409 when the collection is not paired.
         */
        get: operations["listChannels"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/collections/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Live progress: the collection's run events (server-sent events)
         * @description A server-sent events stream (`text/event-stream`) of the collection's runs, authenticated with the bearer
         *     token like every route (read it with `fetch`; the browser's EventSource cannot send the header). Each event has
         *     `id:` (increasing per collection), `event:` (its name) and its fields as JSON in `data:`:
         *
         *     - `run.started` `{run_id, collection_id}`
         *     - `run.progress` `{run_id, custodian, custodian_name, custodian_email, status, listed, collected, unchanged, excluded,
         *       not_present, failed, skipped, bytes}`: cumulative for that custodian in that run, the same numbers as its
         *       reconciliation entry (a channel unit's `custodian` is the channel id, `custodian_name` its name, no e-mail);
         *       `status` `done` or `failed`: the unit is finished; `not_reached`: a cancel stopped it (sent before `run.finished`)
         *     - `run.finished` `{run_id, collection_id, status}`: `status` is the run status
         *     - `collection.error` `{collection_id, reason}`: the collection needs user action
         *     - `collection.scopes_missing` `{collection_id, missing_scopes: [{scope, feature}]}`: right after `pair_credentials`,
         *       the new grant lacks scopes the saved filters use (the collection view's `missing_scopes` says the same)
         *
         *     A new connection first replays the latest run's events so far. With `Last-Event-ID` (the id of the last event
         *     received) it replays what came after it, from the current and the previous run only, then goes on live. A comment
         *     line (`: heartbeat`) is sent every 15 seconds (`EVENT_STREAM_HEARTBEAT_MS`). The stream reads the events every
         *     process writes, so runs executing in a worker process show too; it ends when the client disconnects or the server
         *     stops (reconnect with `Last-Event-ID`).
         */
        get: operations["streamCollectionEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/collections/{id}/exports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The collection's exports, newest first (at most 200) */
        get: operations["listExports"];
        put?: never;
        /**
         * Export the collection as a production package
         * @description Queues an export of the collection's current items as a signed production package (a ZIP): a Concordance
         *     load file `DATA/custody.dat`, `NATIVES/`, `TEXT/`, meeting families, chat as RSMF 2.0 (or JSON) per conversation per
         *     UTC day with its chat files inside and as child documents, `audit.jsonl`, `manifest.json` and `manifest.jws` (Ed25519, keys at `GET /v1/signing-keys`). Any worker writes
         *     it; progress arrives on the collection's event stream (`export.progress`, `export.finished`). Allowed under a legal hold.
         */
        post: operations["createExport"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/collections/{id}/exports/{export_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One export: status, counts, size and SHA-256 of its package */
        get: operations["getExport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/collections/{id}/exports/{export_id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a queued or running export
         * @description The export ends `cancelled` at once; a worker writing it stops within seconds and keeps nothing. 409 when it has already ended.
         */
        post: operations["cancelExport"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/collections/{id}/exports/{export_id}/download": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The package (application/zip)
         * @description 409 until the export has succeeded. `ETag` is the SHA-256 (quoted), `Last-Modified` when Custody stored these bytes. `If-Match`, `If-Unmodified-Since`, `If-None-Match` and `If-Modified-Since` are evaluated in the order of RFC 9110 §13.2.2: 412 when `If-Match`/`If-Unmodified-Since` fails, 304 when `If-None-Match` (`*` included) or `If-Modified-Since` finds the content unchanged. A single `Range: bytes=…` answers 206 with `Content-Range` (an unsatisfiable one 416), unless `If-Range` names another version: then the whole content, 200.
         */
        get: operations["downloadExport"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/collections/{id}/folders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Browse a user's drive folders (`edrive` only)
         * @description The folders directly under `parent_id` (default: the drive root), so a client can walk the tree. Follow `_next` (as `cursor`) until it is null. 400 for other collection types, 404 for an unknown user or one without a provisioned drive, 409 when the collection is not paired.
         */
        get: operations["listFolders"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/collections/{id}/items": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a collection's items
         * @description Oldest first. Items an `auto` collection tombstoned (deleted at the source) are not listed.
         */
        get: operations["listItems"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/collections/{id}/items/{item_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read an item */
        get: operations["getItem"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/collections/{id}/items/{item_id}/content": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download an item's content
         * @description Streams the stored bytes. `ETag` is the SHA-256 (quoted), `Last-Modified` when Custody stored these bytes. `If-Match`, `If-Unmodified-Since`, `If-None-Match` and `If-Modified-Since` are evaluated in the order of RFC 9110 §13.2.2: 412 when `If-Match`/`If-Unmodified-Since` fails, 304 when `If-None-Match` (`*` included) or `If-Modified-Since` finds the content unchanged. A single `Range: bytes=…` answers 206 with `Content-Range` (an unsatisfiable one 416), unless `If-Range` names another version: then the whole content, 200. 404 when the item has no content.
         */
        get: operations["getItemContent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/collections/{id}/items/{item_id}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An item's superseded versions
         * @description Oldest first. An `arch` collection keeps every version of every item; any collection keeps them while a legal hold covers it (an `auto` or `one` collection drops their content, not their record, when the last hold is released). A version without content (a message, a meeting) keeps its text and metadata. The item itself is `current_version_number`.
         */
        get: operations["listItemVersions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/collections/{id}/items/{item_id}/versions/{version_number}/content": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Download a superseded version's content
         * @description Like the item content download, for one of the versions GET …/versions lists. `ETag` is the SHA-256 (quoted), `Last-Modified` when Custody stored these bytes. `If-Match`, `If-Unmodified-Since`, `If-None-Match` and `If-Modified-Since` are evaluated in the order of RFC 9110 §13.2.2: 412 when `If-Match`/`If-Unmodified-Since` fails, 304 when `If-None-Match` (`*` included) or `If-Modified-Since` finds the content unchanged. A single `Range: bytes=…` answers 206 with `Content-Range` (an unsatisfiable one 416), unless `If-Range` names another version: then the whole content, 200. 404 when there is no such version or its content is not kept (`content_available: false`).
         */
        get: operations["getItemVersionContent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/collections/{id}/manifest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The chain-of-custody manifest
         * @description One record per item ever collected (tombstones included): path, custodian, kind, size, SHA-256, MD5, the provider hash and whether it verified, source timestamps, collected time, run id; plus a summary (filters applied and their fingerprint, counts, runs) and every recorded exception. `format=json` (default): `{manifest_version, generated_datetime, collection, filters, filters_fingerprint, counts, runs, items, exceptions}`. `format=csv`: one RFC 4180 table with a `record_type` column: a `summary` row (the summary as JSON in `detail`), `item` rows, `exception` rows (`detail` = reason, `collected_datetime` = when recorded). Text cells that would start a spreadsheet formula are prefixed with an apostrophe; the JSON form is exact.
         */
        get: operations["getManifest"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/collections/{id}/pair_credentials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Bind a consent to the collection's wallet
         * @description `auth_code` is the `code` the browser brought back to `redirect_to`. It is single use, expires 10 minutes after the consent, and works only in the account that started the authorization and for a collection of the same type; anything else answers 400. The grant is stored sealed in the collection's wallet, replacing any earlier one (so every collection using that wallet is re-paired). Pairing does not change `sync_status`: a collection in `error` (for example after its grant was revoked) keeps that status and its `status_reason` until its next run is queued or started, which the new grant lets proceed. When the new grant lacks scopes the saved filters use, the collection view lists them in `missing_scopes` from then on (and, unless the collection is in `error`, `status_reason` says so) and the event stream gets `collection.scopes_missing` `{collection_id, missing_scopes: [{scope, feature}]}`.
         */
        post: operations["pairCredentials"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/collections/{id}/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A collection's run history
         * @description Newest first, with counters (live while a run is active) and the errors each run recorded.
         */
        get: operations["listRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/collections/{id}/runs/{run_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One run: its status, counters and errors, and the request budget its credential is held to
         * @description As in the run history, plus `provider_budget`: the request rate learned for the collection's wallet from the provider's answers (shared by every worker and kept across runs), and `units`: each unit of a split run with its `last_progress_at`.
         */
        get: operations["getRun"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/collections/{id}/runs/{run_id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a queued or running run
         * @description The run ends `cancelled` at once (in the database, so every process executing its units stops before its next piece, within seconds); what it collected stays. Its reconciliation lists the units it never finished with outcome `not_reached`. The collection moves to `error` ("the sync was cancelled; start it again") and emits `collection.error`. 409 when the run has already ended.
         */
        post: operations["cancelRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/collections/{id}/runs/{run_id}/reconciliation": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A run's reconciliation: per custodian, what existed, what was collected, and why anything was not
         * @description Per unit of the run (a custodian: a Zoom owner or a OneDrive user; or a Zoom channel): `listed, collected, unchanged, excluded, not_present, failed`, and every exception (`failed`, `not_present`, `not_reached`, `provider_limit`) with its reason. `balanced` says the invariant `listed = collected + unchanged + excluded + not_present + failed` holds for every custodian and in the totals. Failed pieces stay on their unit's retry list and are tried again by the following runs; after 5 attempts they are reported as permanently failed in the manifest (`permanently_failed`). Live while the run is active. `format=csv`: one row per custodian with the counts; `format=csv&rows=exceptions`: one row per exception.
         */
        get: operations["getReconciliation"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/collections/{id}/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a sync that pulls exactly what the filters allow
         * @description A start while a run is active returns that run (`created: false`); there is never a second active run. 409 when filters or paired credentials are missing, or when the filters need a permission the paired grant lacks (the message names it and the feature).
         */
        post: operations["startCollection"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/collections/{id}/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the users of the paired account (to choose whose data to collect)
         * @description `conf`: `{results, next_page_token}` with `limit` and `offset`; users of every status are listed so that departed custodians can be selected. `edrive`: `{entries, limit, next_marker}` with `limit` and `marker`. Follow the cursor until it is null. 409 when the collection is not paired.
         */
        get: operations["listUsers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/collections/authorization_url/{type}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Start pairing: the provider authorization URL for a collection type
         * @description Answers 302 to the provider (`conf`) or 200 `{authorization_url}` (`edrive`); with `Accept: application/json` (that type alone) it answers 200 `{authorization_url}` for every type (a web page cannot read a cross-origin redirect). `redirect_to` must be on the account allowlist (exact match) or be the web console, `<PUBLIC_URL>/console/` (when PUBLIC_URL is a loopback address, under any loopback name: `localhost`, `127.0.0.1`, `[::1]`). The `state` sent to the provider is signed, expires after 10 minutes, is single use and binds the account, the type, `redirect_to` and the client `state`. After consent the browser comes back to `redirect_to?code=<one-time pairing code>&state=<client state>` (or `?error=…&error_description=…&state=…`); pass the code to `pair_credentials` within 10 minutes.
         *
         *     Scope sets (`scopes_type`; omitted = `default`). The `preservation` set is for legal-hold flows: it adds what a preservation matter needs (Zoom: account-wide meeting summaries and Team Chat legal-hold reads); holds themselves live under `/v1/legalhold/`.
         *     - `conf` / `default`: `user:read:list_users:admin`, `user:read:user:admin`, `cloud_recording:read:list_user_recordings:admin`, `cloud_recording:read:list_recording_files:admin`, `meeting:read:list_summaries:admin`, `meeting:read:summary:admin`, `team_chat:read:list_user_channels:admin`, `team_chat:read:list_user_sessions:admin`, `team_chat:read:list_user_messages:admin`
         *     - `conf` / `preservation`: `user:read:list_users:admin`, `user:read:user:admin`, `cloud_recording:read:list_user_recordings:admin`, `cloud_recording:read:list_recording_files:admin`, `meeting:read:list_summaries:admin`, `meeting:read:summary:admin`, `team_chat:read:list_user_channels:admin`, `team_chat:read:list_user_sessions:admin`, `team_chat:read:list_user_messages:admin`, `team_chat:read:list_legal_hold_matters:admin`, `team_chat:read:list_legal_hold_matter_files:admin`, `team_chat:read:legal_hold_matter_file:admin`, `report:read:list_chat_sessions:admin`, `report:read:chat_session:admin`
         *     - `edrive` / `default`: `Files.Read.All`, `User.Read.All`
         */
        get: operations["getAuthorizationUrl"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/legalhold/holds": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the account's legal holds, active and released
         * @description Oldest first. `status=active` or `status=released` lists only those; without it, both.
         */
        get: operations["listHolds"];
        put?: never;
        /**
         * Place a legal hold on collections and/or a workspace
         * @description Needs `collection_ids`, `workspace_id` or both; each must exist in the caller's account.
         *
         *     A legal hold freezes deletion: while an active hold covers a collection (listed in `collection_ids`, or through
         *     the hold's `workspace_id`, which also covers collections created later in that workspace), `DELETE` of the
         *     collection or of its workspace answers 409 naming the hold, and an `auto` sync that sees an item deleted at the
         *     source only tombstones it (hidden from lists and search unless `include_deleted`) and never purges its content.
         *     Releasing the hold (`DELETE /v1/legalhold/holds/{id}`) lifts this: content an `auto` collection kept only
         *     because of the hold (items the source deleted) is purged at once, unless another active hold still covers the
         *     collection; the blob itself goes when nothing else references it. Nothing under `/v1/legalhold/` is rate limited.
         *
         *     `scopes_type=preservation` on `GET /v1/collections/authorization_url/conf` is a different thing: it asks the
         *     provider for the preservation OAuth scopes used by in-place legal-hold flows at the source. It does not create a
         *     hold here, and a hold does not need it: holds act on what this service has collected, whatever scopes paired it.
         */
        post: operations["createHold"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/legalhold/holds/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a legal hold, active or released */
        get: operations["getHold"];
        put?: never;
        post?: never;
        /**
         * Release a legal hold
         * @description Deletion of what it covered is allowed again (unless another hold covers it). Content an `auto` collection kept only because of this hold (items the source deleted) is purged now, unless another hold still covers the collection. The hold stays readable as `status: released` with `released_at` and `released_by`; releasing it again answers 409 (`00409_hold_released`).
         */
        delete: operations["releaseHold"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/oauth/callback/{type}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Where the provider sends the browser back after consent (no bearer token)
         * @description Verifies the state (a tampered, expired, replayed or missing state answers 400 and stores nothing), then exchanges the code or proves the consent and keeps the grant sealed as a pending pairing. Redirects the browser (302) to `redirect_to?code=<one-time pairing code>&state=<client state>`, or to `redirect_to?error=…&error_description=…&state=…` when the provider reports an error (checked before anything else it says) or refuses the code. A flow of two provider steps passes here twice: `edrive` first signs the administrator in (authorization code + PKCE, id_token verified), then sends the browser (302) on to admin consent for the administrator's own tenant with a fresh signed, single-use state; only a consent for that same tenant, proven with an app-only token, creates the pairing code.
         */
        get: operations["completeOAuthCallback"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/oauth/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Obtain or refresh a service access token
         * @description RFC 6749 token endpoint; its metadata (RFC 8414) is at `/.well-known/oauth-authorization-server`. The body is form-encoded (`application/x-www-form-urlencoded`, RFC 6749 §3.2): any other media type is refused with `invalid_request`. The client authenticates with HTTP Basic (`client_secret_basic`: `Authorization: Basic base64(client_id:client_secret)`, each form-urlencoded first) or with `client_id` and `client_secret` in the form (`client_secret_post`), not both. `grant_type=client_credentials` gives the first token pair; `grant_type=refresh_token` with `refresh_token` rotates it. Presenting an already-rotated refresh token revokes the whole token family. 30 requests/min per client id however it is sent, failed attempts included. Errors (RFC 6749 §5.2): `invalid_request` for a malformed request (no `grant_type`, no `refresh_token`, a repeated parameter, two authentication methods), `invalid_client` (401, with `WWW-Authenticate: Basic`), `invalid_grant`, `unsupported_grant_type`.
         */
        post: operations["issueToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Search collected content
         * @description Full-text search over the caller's account: item names, paths, metadata (meeting topics, participants, sender and
         *     recipient e-mails, channel names) and the text of the content: transcripts (WebVTT cue text), in-meeting chat
         *     files, chat and channel messages, AI meeting notes, text-like files (txt, md, csv, tsv, json, html and xml with
         *     tags stripped) and the text of docx and pdf files (up to 4 MiB read, 200 pdf pages; parsed off the main thread,
         *     a broken document is still stored and found by name, path and metadata). Own limit: 300 requests/min per token.
         *
         *     **Query language**
         *     - `budget`: a word. Case and accents are ignored; a word is a run of letters and digits, so `alice@example.com`
         *       or `e-mail` search as the phrase of their parts.
         *     - `"quarterly budget review"`: an exact phrase (the words next to each other, in this order).
         *     - `budg*`: a prefix (at least 2 letters or digits before the `*`).
         *     - `a AND b` or `a b`: both. `a OR b`: either. `a NOT b` (also `a AND NOT b`): `a` without `b`; NOT must follow
         *       something it subtracts from. Operators are upper case (`and` is a word). Parentheses group:
         *       `(budget OR forecast) NOT draft`. Precedence: NOT, then AND, then OR.
         *     - Field filters, written without a space after the colon: `name:budget`, `name:"board minutes"`, `name:budg*`,
         *       `name:(a OR b)` and `path:finance` match in the item's name or path only; `kind:transcript` matches items of a
         *       kind; `custodian:alice@example.com` matches the custodian's e-mail or provider id exactly (any case). Other `word:` prefixes are
         *       errors: quote text that contains a colon.
         *
         *     A malformed query answers 400 with `source.pointer` `/body/query` and a `detail` naming the problem and its position.
         *
         *     **Ranking** Items holding the query's words as one exact phrase come first, then by relevance (BM25 on SQLite,
         *     `ts_rank` on PostgreSQL; scores compare only within one response); names weigh more than metadata and content.
         *
         *     **Filters** `workspace_id`, `collection_ids`, `kinds`, `custodians` (each a provider user id or an e-mail, exact, any case), `date_from`/`date_to`
         *     (a date or an ISO date-time with a zone, inclusive, compared to the second with the item's source modified time,
         *     or its created time when it has none). Items tombstoned by an `auto` sync are excluded unless `include_deleted`.
         *
         *     **Highlights** Up to three HTML-escaped snippets in which the matches are wrapped in `<mark>`…`</mark>`.
         *
         *     **Paging** `size` (default 20, max 100) and the previous response's `cursor`; a cursor only fits the query and
         *     filters it came from. The first 10,000 results can be paged.
         *
         *     **Totals and large result sets** Matches are counted up to 10,000. `total_relation` `eq`: `total` is every match,
         *     and every match was ranked. `total_relation` `gte`: more than 10,000 items match, `total` is 10,000, and the results
         *     are the first 10,000 matches in the index's order (broadly, the items indexed first), ranked among themselves; a
         *     better match further on is not among them. Narrow the query (more words, a phrase, `collection_ids`, `custodians`,
         *     `kinds`, a date range) until `total_relation` is `eq` to rank every match. This keeps a search's cost bounded by
         *     10,000 matches, not by the size of the collection (a word in half of a million items answers as fast as a rare one).
         */
        post: operations["searchItems"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/signing-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The installation's public signing keys (JWKS)
         * @description Public (no token): a recipient of an export package fetches it to check `manifest.jws` (`custody verify --keys <url>`). Retired keys stay listed.
         */
        get: operations["getSigningKeys"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/wallet": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the account's wallets (never any secret)
         * @description Oldest first, paged with `cursor`.
         */
        get: operations["listWallets"];
        put?: never;
        /**
         * Create an empty credential wallet
         * @description A wallet is created empty; pairing fills it. `config_type` is the collection type it serves: `conf` (Zoom) or `edrive` (OneDrive for Business).
         */
        post: operations["createWallet"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/wallet/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a wallet (never any secret) */
        get: operations["getWallet"];
        put?: never;
        post?: never;
        /**
         * Delete a wallet and its stored grant
         * @description Removes the provider connection: the stored grant is erased with the wallet. 409 (`00409_in_use`) while a collection uses the wallet (delete the collection first, or wait until its deletion has finished). Where the provider offers revocation the grant is then revoked there (best effort: a failed revocation does not keep the wallet; the audit entry records `provider_revocation`: `revoked`, `failed`, `not_offered` or `not_paired`). A Zoom (`conf`) grant is revoked at Zoom (`POST /oauth/revoke`). A Microsoft (`edrive`) grant is an administrator's tenant-wide consent, which Graph offers no way to revoke per application: remove the enterprise application in Microsoft Entra to withdraw it.
         */
        delete: operations["deleteWallet"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook_endpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the account's webhook endpoints */
        get: operations["listWebhookEndpoints"];
        put?: never;
        /**
         * Register a webhook endpoint
         * @description Registers a receiver for the caller's account. Each event is POSTed as JSON `{id, type, created, data}` with the
         *     header `Custody-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>` (the secret's UTF-8
         *     bytes are the key). Verify it on the raw body and reject old timestamps. A non-2xx answer or no answer within 10 s
         *     is retried with backoff (10 s, 30 s, 2 min, 10 min, 30 min, then hourly) for up to 24 hours; every attempt is
         *     recorded (`GET /v1/webhook_endpoints/{id}/deliveries`). The same event keeps its `id` across retries.
         *
         *     The URL must be http(s) on a public address: hosts that are or resolve to loopback, private or link-local
         *     addresses are refused (checked again at every delivery) unless the server runs with `WEBHOOKS_ALLOW_PRIVATE=true`.
         *     The `secret` is in this response only.
         */
        post: operations["createWebhookEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook_endpoints/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A webhook endpoint (without its secret) */
        get: operations["getWebhookEndpoint"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook endpoint
         * @description No further deliveries are attempted, pending ones included.
         */
        delete: operations["deleteWebhookEndpoint"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook_endpoints/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An endpoint's deliveries, oldest event first, with the outcome of their last attempt */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/microsoft": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Microsoft Graph change notifications (called by Graph, not by clients)
         * @description With `validationToken`: the subscription validation handshake, answered 200 `text/plain` with the token. Otherwise a batch `{value: [...]}` of drive notifications: each whose `subscriptionId` is one of Custody's subscriptions and whose `clientState` matches is stored (a repeated delivery once); the others are ignored. Answered 202 before any work.
         */
        post: operations["receiveMicrosoftNotification"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/zoom": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Zoom event subscriptions (called by Zoom, not by clients)
         * @description Every request must carry `x-zm-signature` = `v0=` + hex HMAC-SHA256 of `v0:{x-zm-request-timestamp}:{raw body}` keyed with ZOOM_WEBHOOK_SECRET_TOKEN, and a timestamp at most 90 minutes old; otherwise 401 and nothing happens. `endpoint.url_validation` is answered with `{plainToken, encryptedToken}`. Recording, summary and chat events are stored (a repeated delivery once) and answered 204 before any work; collections are updated afterwards by the workers. Other authentic events are answered 204 and ignored.
         */
        post: operations["receiveZoomWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the account's workspaces */
        get: operations["listWorkspaces"];
        put?: never;
        /** Create a workspace */
        post: operations["createWorkspace"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a workspace */
        get: operations["getWorkspace"];
        put?: never;
        post?: never;
        /**
         * Delete a workspace and everything in it (permanent)
         * @description Cancels running syncs, deletes every collection with its items, runs and unreferenced blobs. 409 while a legal hold covers it.
         */
        delete: operations["deleteWorkspace"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/{id}/collections": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the collections of a workspace */
        get: operations["listWorkspaceCollections"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
        Error: {
            /** @example 00404_not_found */
            code: string;
            detail: string;
            /** @description Equals the X-Correlation-ID response header. Quote it when contacting support. */
            id: string;
            links: {
                about: string;
            };
            source: null | {
                pointer: string;
            };
            title: string;
        };
    };
    responses: {
        /** @description The request is malformed: its URL, Host, framing, parameters or body. */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description An `Expect` other than `100-continue`. */
        ExpectationFailed: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The request headers are too large; the connection is closed. */
        HeadersTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description An internal error; quote the id when contacting support. */
        InternalError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description A transfer coding other than chunked. */
        NotImplemented: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The body exceeds the route's limit; the connection is closed. */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The request (or its body) took too long to arrive; the connection is closed. */
        RequestTimeout: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The body has a media type or charset the route does not read. */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description A path segment is too long. */
        UriTooLong: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description The budget of the window (requests per minute) this request was counted in. */
        "RateLimit-Limit": number;
        /** @description Requests left in the window. */
        "RateLimit-Remaining": number;
        /** @description Seconds until the window resets. */
        "RateLimit-Reset": number;
        /** @description Seconds to wait before retrying. */
        "Retry-After": number;
        /** @description The challenge (RFC 6750 §3): `Bearer`, with `error="invalid_token"` when a token was sent but is invalid, expired or revoked. */
        "WWW-Authenticate": string;
        /** @description On every answer: the id of the request (a well-formed incoming one is echoed); equals `id` in an error body. */
        "X-Correlation-ID": string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getAuthorizationServerMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description RFC 8414 §2 authorization server metadata. */
            200: {
                headers: {
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        grant_types_supported: string[];
                        /** @description PUBLIC_URL without a trailing slash. */
                        issuer: string;
                        /** @description Empty: there is no authorization endpoint. */
                        response_types_supported: string[];
                        service_documentation: string;
                        token_endpoint: string;
                        token_endpoint_auth_methods_supported: string[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            408: components["responses"]["RequestTimeout"];
            417: components["responses"]["ExpectationFailed"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    listAudit: {
        parameters: {
            query?: {
                action?: string;
                /** @description The `cursor` of the previous page. */
                cursor?: string;
                limit?: number;
                /** @description Only entries about this id. */
                target?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        cursor: string | null;
                        items: {
                            account_id: string;
                            /**
                             * @example collection.delete
                             * @example legalhold.create
                             * @example token.refresh
                             * @example run.finish
                             */
                            action: string;
                            /** @description The API client that acted; null for run events. */
                            client_id: string | null;
                            /** @description The collection whose chain holds the entry; null: the account's chain. */
                            collection_id: string | null;
                            correlation_id: string | null;
                            /** Format: date-time */
                            datetime: string;
                            /** @description Non-secret facts: body field names, run id, trigger. */
                            detail: {
                                [key: string]: unknown;
                            } | null;
                            /** @description Lowercase hex SHA-256 of the RFC 8785 canonical JSON of this entry without `hash`. */
                            hash: string;
                            id: string;
                            /** @description `success` or `failure` for API calls; for runs the run status. */
                            outcome: string;
                            /** @description The previous entry's `hash`; 64 zeros for the first. */
                            prev_hash: string;
                            /** @description Position in its chain, from 1. */
                            seq: number;
                            /** @description HTTP status of an API call. */
                            status_code: number | null;
                            target_id: string | null;
                        }[];
                    };
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    getAuditVerification: {
        parameters: {
            query?: {
                collection_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        broken_at: {
                            /** @description The chain that is broken (null: the account's). */
                            collection_id: string | null;
                            /** @description The entry found there, if any. */
                            id: string | null;
                            reason: string;
                            /** @description The first position where the chain does not hold. */
                            seq: number;
                        } | null;
                        entries: number;
                        head_hash: string;
                        valid: boolean;
                    };
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    listCollections: {
        parameters: {
            query?: {
                /** @description The `cursor` of the previous page. */
                cursor?: string;
                limit?: number;
                /** @description Only collections in this `sync_status`. */
                status?: "created" | "pending" | "syncing" | "synced" | "failed" | "error";
                /** @description Only collections of this type (`conf`, `edrive`). */
                type?: string;
                /** @description Only collections of this workspace (`onna_parent_id`). */
                workspace?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        cursor: string | null;
                        items: {
                            /** Format: date-time */
                            creation_datetime: string;
                            credential_id: string;
                            name: string;
                            onna_id: string;
                            onna_parent_id: string;
                            /** @enum {string} */
                            sync_status: "created" | "pending" | "syncing" | "synced" | "failed" | "error";
                            type: string;
                            /** @enum {string} */
                            type_sync: "one" | "arch" | "auto";
                        }[];
                    };
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    createCollection: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description A wallet whose config_type equals `type`. */
                    credential_id: string;
                    name: string;
                    /** @description The workspace. */
                    onna_parent_id: string;
                    /**
                     * @example conf
                     * @example edrive
                     */
                    type: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        onna_id: string;
                        type: string;
                    };
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    getCollection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        creation_datetime: string;
                        credential_id: string;
                        credentials_paired: boolean;
                        /** @description `edrive`, paired: how changes reach the collection between scheduled runs. `subscription`: Graph change notifications on each selected drive (the app registration holds `Files.ReadWrite.All`, which Graph requires for drive subscriptions). `polling`: no subscription is attempted (the permission is missing, or `MS_CHANGE_NOTIFICATIONS=off`); each selected drive's delta is polled. */
                        event_mode?: "subscription" | "polling";
                        /** @description The latest run; live counters while it is active. */
                        latest_run: {
                            /** @description The reconciliation's categories with its numbers (GET …/runs/{run_id}/reconciliation `totals`, live while the run is active): listed = collected + unchanged + excluded + not_present + failed. */
                            counters: {
                                bytes: number;
                                collected: number;
                                excluded: number;
                                failed: number;
                                listed: number;
                                not_present: number;
                                /** @description Pieces a resumed run saw a second time: not in `listed`, in no outcome. */
                                skipped: number;
                                unchanged: number;
                            };
                            /** @description The custodians (provider user ids, or e-mails when the event named no id) an `event` run was limited to; null for a run of the whole collection. */
                            custodians: string[] | null;
                            error_count: number;
                            finished_datetime: string | null;
                            run_id: string;
                            started_datetime: string | null;
                            /**
                             * @description `succeeded`: every piece the filters selected was collected, unchanged, excluded by the filters or not present at the source. `completed_with_errors`: the run finished but some pieces failed (`counters.failed` > 0); the collection stays `synced`, its `status_reason` says how many and where to look (GET …/runs/{run_id}/reconciliation), and the failed pieces are retried by the following runs. `failed`: nothing could be collected, or the run stopped on an error it retries with backoff. `error`: a person must act (pair again, grant a scope). `cancelled`: stopped on request; what was collected stays.
                             * @enum {string}
                             */
                            status: "queued" | "running" | "succeeded" | "completed_with_errors" | "failed" | "error" | "cancelled";
                            /** @description What queued the run: `start` (POST start or PATCH pending), `schedule` (the auto/arch re-sync), `retry` (after a failure), `event` (a provider event). */
                            trigger: string;
                        } | null;
                        /** @description Paired, with saved filters, and the connector can tell (Zoom: the grant's scopes): the scopes the filters use that the paired grant lacks, `[]` when none. Shown from the moment of pairing (`pair_credentials` also emits `collection.scopes_missing`); a run of such filters would stop in `error`, `start` answers 409 and a PATCH that needs one 422. */
                        missing_scopes?: {
                            /** @description What of the saved filters needs it. */
                            feature: string;
                            /** @description The whole sentence for a person: the scope, the feature, what to do. */
                            message: string;
                            /** @description JSON pointer into `sync_filters` of the part that switches it on. */
                            pointer: string;
                            /** @description The scope (or app role) exactly as the provider names it. */
                            scope: string;
                        }[];
                        /** Format: date-time */
                        modification_datetime: string;
                        name: string;
                        next_sync_datetime: string | null;
                        onna_id: string;
                        onna_parent_id: string;
                        /** @description With `event_mode: polling`: minutes between polls of each selected drive, sized to the tenant's request budget. */
                        polling_interval_minutes?: number;
                        /** @description Why the status is `error` or `failed`. */
                        status_reason: string | null;
                        sync_filters: {
                            [key: string]: unknown;
                        } | null;
                        /** @enum {string} */
                        sync_status: "created" | "pending" | "syncing" | "synced" | "failed" | "error";
                        type: string;
                        /** @enum {string} */
                        type_sync: "one" | "arch" | "auto";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            414: components["responses"]["UriTooLong"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    deleteCollection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            409: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            414: components["responses"]["UriTooLong"];
            415: components["responses"]["UnsupportedMediaType"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    patchCollection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @description The whole filter object of the collection type. `conf` (Zoom): `account_owners` and `content_selections` are required selections `{all_selected, selected, excluded}`; `chats` is optional (no key: no chats). `edrive` (OneDrive): an object keyed by user id (from `GET /v1/collections/{id}/users`), each `{filter_type: "user_folders", filter_name, all_selected, selected: [{id}], excluded: [{id}]}` with folder ids from `GET /v1/collections/{id}/folders?user_id=`; only users that are keys are collected.
                     * @example {
                     *       "account_owners": {
                     *         "all_selected": false,
                     *         "selected": [
                     *           {
                     *             "id": "KDcuGIm1QgePTO8WbOqwIQ"
                     *           }
                     *         ],
                     *         "excluded": []
                     *       },
                     *       "content_selections": {
                     *         "all_selected": false,
                     *         "selected": [
                     *           {
                     *             "video": true
                     *           },
                     *           {
                     *             "transcript": true
                     *           },
                     *           {
                     *             "chat": true
                     *           }
                     *         ],
                     *         "excluded": []
                     *       },
                     *       "chats": {
                     *         "all_selected": false,
                     *         "selected": [
                     *           {
                     *             "one-to-one": true
                     *           },
                     *           {
                     *             "channels": {
                     *               "all_selected": false,
                     *               "selected": [
                     *                 {
                     *                   "id": "c4f1d2e0a9b84a1e9f1b"
                     *                 }
                     *               ],
                     *               "excluded": []
                     *             }
                     *           }
                     *         ],
                     *         "excluded": []
                     *       }
                     *     }
                     * @example {
                     *       "60651a07-667d-45bf-8fbc-7fdac8f77db4": {
                     *         "filter_type": "user_folders",
                     *         "filter_name": "Finance only",
                     *         "all_selected": false,
                     *         "selected": [
                     *           {
                     *             "id": "017RP2JUYOZ4ZPWICUTUKHU4RLDP774GCV"
                     *           }
                     *         ],
                     *         "excluded": []
                     *       },
                     *       "285a05ef-6398-43c4-98d7-3c8f824a2dbb": {
                     *         "filter_type": "user_folders",
                     *         "filter_name": "Everything",
                     *         "all_selected": true,
                     *         "selected": [],
                     *         "excluded": []
                     *       }
                     *     }
                     */
                    sync_filters?: unknown;
                    /**
                     * @description Clients may only write `pending`.
                     * @enum {string}
                     */
                    sync_status?: "pending";
                    /** @description Superseded versions kept while the collection was `arch` remain (with their content) when the type changes, until the collection is deleted; versions kept only because of a legal hold are purged once no hold covers a collection that is not `arch`. */
                    type_sync?: "one" | "arch" | "auto";
                };
            };
        };
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            409: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            414: components["responses"]["UriTooLong"];
            415: components["responses"]["UnsupportedMediaType"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            422: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    listChannels: {
        parameters: {
            query: {
                /** @description Page size. `conf`: default and maximum 300. `edrive`: default 100, maximum 999. Larger values are clamped. */
                limit?: number;
                /** @description The previous `next_page_token`; omit for the first page. */
                offset?: string;
                /** @description User id from the users list. */
                user: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Pass it as `offset` for the next page; null on the last page. */
                        next_page_token: string | null;
                        results: ({
                            id: string;
                            is_private?: boolean;
                            name?: string | null;
                        } & {
                            [key: string]: unknown;
                        })[];
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            409: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            414: components["responses"]["UriTooLong"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            502: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    streamCollectionEvents: {
        parameters: {
            query?: never;
            header?: {
                /** @description The `id` of the last event received: replay from after it. */
                "last-event-id"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event stream. */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            414: components["responses"]["UriTooLong"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    listExports: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            /** @description The package's size. */
                            bytes: number | null;
                            /** @description Known once the export has succeeded. */
                            counts: {
                                documents: number;
                                duplicates_suppressed: number;
                                families: number;
                                natives: number;
                                texts: number;
                            } | null;
                            /** Format: date-time */
                            created_at: string;
                            error: string | null;
                            export_id: string;
                            finished_at: string | null;
                            /** @description The package's SHA-256 (its download's ETag). */
                            sha256: string | null;
                            status: "queued" | "running" | "succeeded" | "failed" | "cancelled";
                        }[];
                    };
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            414: components["responses"]["UriTooLong"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    createExport: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @default rsmf */
                    chat_format?: "rsmf" | "json";
                    /** @default none */
                    dedupe?: "none" | "custodian" | "global";
                    items?: {
                        /** @description Custodian e-mails or provider ids (`channel:<id>` for a Zoom channel). */
                        custodians?: string[];
                        /** Format: date-time */
                        from?: string;
                        kinds?: string[];
                        /** @description Only items this run collected. */
                        run_id?: string;
                        /** Format: date-time */
                        to?: string;
                    };
                };
            };
        };
        responses: {
            /** @description Default Response */
            202: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        export_id: string;
                        status: "queued" | "running" | "succeeded" | "failed" | "cancelled";
                    };
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            409: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            414: components["responses"]["UriTooLong"];
            415: components["responses"]["UnsupportedMediaType"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    getExport: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                export_id: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description The package's size. */
                        bytes: number | null;
                        /** @description Known once the export has succeeded. */
                        counts: {
                            documents: number;
                            duplicates_suppressed: number;
                            families: number;
                            natives: number;
                            texts: number;
                        } | null;
                        /** Format: date-time */
                        created_at: string;
                        error: string | null;
                        export_id: string;
                        finished_at: string | null;
                        /** @description The package's SHA-256 (its download's ETag). */
                        sha256: string | null;
                        status: "queued" | "running" | "succeeded" | "failed" | "cancelled";
                    };
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            414: components["responses"]["UriTooLong"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    cancelExport: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                export_id: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            202: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        export_id: string;
                        status: "queued" | "running" | "succeeded" | "failed" | "cancelled";
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            409: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            414: components["responses"]["UriTooLong"];
            415: components["responses"]["UnsupportedMediaType"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    downloadExport: {
        parameters: {
            query?: never;
            header?: {
                "if-match"?: string;
                "if-modified-since"?: string;
                "if-none-match"?: string;
                "if-range"?: string;
                "if-unmodified-since"?: string;
                range?: string;
            };
            path: {
                export_id: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The package (application/zip). */
            200: {
                headers: {
                    /** @description `bytes` */
                    "Accept-Ranges": string;
                    /** @description `attachment; filename*=UTF-8''<name>` */
                    "Content-Disposition": string;
                    /** @description The SHA-256 of the content, quoted (a strong entity-tag). */
                    ETag: string;
                    /** @description When Custody stored these bytes. */
                    "Last-Modified"?: string;
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    /** @description `nosniff` */
                    "X-Content-Type-Options": string;
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "*/*": unknown;
                };
            };
            /** @description The requested range of the content. */
            206: {
                headers: {
                    /** @description `bytes` */
                    "Accept-Ranges": string;
                    /** @description `attachment; filename*=UTF-8''<name>` */
                    "Content-Disposition": string;
                    /** @description `bytes <first>-<last>/<size>` */
                    "Content-Range": string;
                    /** @description The SHA-256 of the content, quoted (a strong entity-tag). */
                    ETag: string;
                    /** @description When Custody stored these bytes. */
                    "Last-Modified"?: string;
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    /** @description `nosniff` */
                    "X-Content-Type-Options": string;
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "*/*": unknown;
                };
            };
            /** @description Not modified: the content is unchanged. */
            304: {
                headers: {
                    /** @description The SHA-256 of the content, quoted (a strong entity-tag). */
                    ETag: string;
                    /** @description When Custody stored these bytes. */
                    "Last-Modified"?: string;
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            409: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            412: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            414: components["responses"]["UriTooLong"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            416: {
                headers: {
                    /** @description `bytes *\/<size>` */
                    "Content-Range": string;
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    listFolders: {
        parameters: {
            query: {
                /** @description The previous `_next`; omit for the first page. */
                cursor?: string;
                /** @description A folder id; omit for the drive root. */
                parent_id?: string;
                /** @description User id from the users list. */
                user_id: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Opaque: pass it as `cursor` for the next page; null on the last page. */
                        _next: string | null;
                        results: ({
                            /** @description ISO 8601 UTC */
                            created_datetime?: string | null;
                            /** @description Use it in `selected` and `excluded` entries. */
                            id: string;
                            /** @description ISO 8601 UTC */
                            last_modified_datetime?: string | null;
                            /** @description Direct URL of the folder. */
                            link?: string | null;
                            name: string;
                            /** @description Bytes of everything beneath the folder. */
                            size?: number | null;
                            /** @description From the drive root to the folder. */
                            sorted_path_elements: ({
                                id: string;
                                name: string;
                            } & {
                                [key: string]: unknown;
                            })[];
                        } & {
                            [key: string]: unknown;
                        })[];
                        /** @description Human-readable count, e.g. "12 folders". */
                        total_count_label: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            409: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            414: components["responses"]["UriTooLong"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            502: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listItems: {
        parameters: {
            query?: {
                /** @description The `cursor` of the previous page. */
                cursor?: string;
                /** @description The custodian's provider user id, or their e-mail (any case). */
                custodian?: string;
                /** @description Only items of this kind; the collection type decides which kinds exist (conf: meeting, recording_video, recording_audio, transcript, meeting_chat, ai_meeting_notes, chat_message, channel_message, chat_file, participant_audio, legal_hold_file; edrive: file, folder). Another value answers 400. */
                kind?: string;
                limit?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        cursor: string | null;
                        items: {
                            collected_datetime: string;
                            collection_id: string;
                            created_datetime: string | null;
                            custodian: string | null;
                            custodian_email: string | null;
                            custodian_name: string | null;
                            deleted_at_source: string | null;
                            hash_verified: boolean | null;
                            /** @description What the item is; each collection type's connector defines its kinds (listed under the `kind` parameter of the items list). */
                            kind: string;
                            md5: string | null;
                            /** @description The provider's fields. */
                            metadata: {
                                [key: string]: unknown;
                            };
                            mime_type: string | null;
                            modified_datetime: string | null;
                            name: string;
                            onna_id: string;
                            path: string;
                            provider_hash: {
                                type: string;
                                value: string;
                            } | null;
                            run_id: string;
                            sha256: string | null;
                            size: number | null;
                            /** @description The provider's own id of the thing. */
                            source_id: string;
                        }[];
                    };
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            414: components["responses"]["UriTooLong"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    getItem: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                item_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        collected_datetime: string;
                        collection_id: string;
                        created_datetime: string | null;
                        custodian: string | null;
                        custodian_email: string | null;
                        custodian_name: string | null;
                        deleted_at_source: string | null;
                        hash_verified: boolean | null;
                        /** @description What the item is; each collection type's connector defines its kinds (listed under the `kind` parameter of the items list). */
                        kind: string;
                        md5: string | null;
                        /** @description The provider's fields. */
                        metadata: {
                            [key: string]: unknown;
                        };
                        mime_type: string | null;
                        modified_datetime: string | null;
                        name: string;
                        onna_id: string;
                        path: string;
                        provider_hash: {
                            type: string;
                            value: string;
                        } | null;
                        run_id: string;
                        sha256: string | null;
                        size: number | null;
                        /** @description The provider's own id of the thing. */
                        source_id: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            414: components["responses"]["UriTooLong"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    getItemContent: {
        parameters: {
            query?: never;
            header?: {
                "if-match"?: string;
                "if-modified-since"?: string;
                "if-none-match"?: string;
                "if-range"?: string;
                "if-unmodified-since"?: string;
                range?: string;
            };
            path: {
                id: string;
                item_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The content, with the Content-Type recorded for the item. */
            200: {
                headers: {
                    /** @description `bytes` */
                    "Accept-Ranges": string;
                    /** @description `attachment; filename*=UTF-8''<name>` */
                    "Content-Disposition": string;
                    /** @description The SHA-256 of the content, quoted (a strong entity-tag). */
                    ETag: string;
                    /** @description When Custody stored these bytes. */
                    "Last-Modified"?: string;
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    /** @description `nosniff` */
                    "X-Content-Type-Options": string;
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "*/*": unknown;
                };
            };
            /** @description The requested range of the content. */
            206: {
                headers: {
                    /** @description `bytes` */
                    "Accept-Ranges": string;
                    /** @description `attachment; filename*=UTF-8''<name>` */
                    "Content-Disposition": string;
                    /** @description `bytes <first>-<last>/<size>` */
                    "Content-Range": string;
                    /** @description The SHA-256 of the content, quoted (a strong entity-tag). */
                    ETag: string;
                    /** @description When Custody stored these bytes. */
                    "Last-Modified"?: string;
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    /** @description `nosniff` */
                    "X-Content-Type-Options": string;
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "*/*": unknown;
                };
            };
            /** @description Not modified: the content is unchanged. */
            304: {
                headers: {
                    /** @description The SHA-256 of the content, quoted (a strong entity-tag). */
                    ETag: string;
                    /** @description When Custody stored these bytes. */
                    "Last-Modified"?: string;
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            412: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            414: components["responses"]["UriTooLong"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            416: {
                headers: {
                    /** @description `bytes *\/<size>` */
                    "Content-Range": string;
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    listItemVersions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                item_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        current_version_number: number;
                        item_id: string;
                        versions: {
                            collected_datetime: string;
                            /** @description Whether GET …/versions/{version_number}/content serves its bytes. */
                            content_available: boolean;
                            created_datetime: string | null;
                            custodian: string | null;
                            deleted_at_source: string | null;
                            hash_verified: boolean | null;
                            md5: string | null;
                            metadata: {
                                [key: string]: unknown;
                            } | null;
                            mime_type: string | null;
                            modified_datetime: string | null;
                            name: string | null;
                            path: string | null;
                            provider_hash: {
                                type: string;
                                value: string;
                            } | null;
                            /** @description The run that collected this version. */
                            run_id: string;
                            sha256: string | null;
                            size: number | null;
                            superseded_by_run_id: string | null;
                            /** @description When a run found the next version. */
                            superseded_datetime: string;
                            text: string | null;
                            /** @description 1 = the oldest superseded version. */
                            version_number: number;
                        }[];
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            414: components["responses"]["UriTooLong"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    getItemVersionContent: {
        parameters: {
            query?: never;
            header?: {
                "if-match"?: string;
                "if-modified-since"?: string;
                "if-none-match"?: string;
                "if-range"?: string;
                "if-unmodified-since"?: string;
                range?: string;
            };
            path: {
                id: string;
                item_id: string;
                /** @description From GET …/versions: 1 is the oldest superseded version. */
                version_number: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The version's content, with the Content-Type recorded for it. */
            200: {
                headers: {
                    /** @description `bytes` */
                    "Accept-Ranges": string;
                    /** @description `attachment; filename*=UTF-8''<name>` */
                    "Content-Disposition": string;
                    /** @description The SHA-256 of the content, quoted (a strong entity-tag). */
                    ETag: string;
                    /** @description When Custody stored these bytes. */
                    "Last-Modified"?: string;
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    /** @description `nosniff` */
                    "X-Content-Type-Options": string;
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "*/*": unknown;
                };
            };
            /** @description The requested range of the content. */
            206: {
                headers: {
                    /** @description `bytes` */
                    "Accept-Ranges": string;
                    /** @description `attachment; filename*=UTF-8''<name>` */
                    "Content-Disposition": string;
                    /** @description `bytes <first>-<last>/<size>` */
                    "Content-Range": string;
                    /** @description The SHA-256 of the content, quoted (a strong entity-tag). */
                    ETag: string;
                    /** @description When Custody stored these bytes. */
                    "Last-Modified"?: string;
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    /** @description `nosniff` */
                    "X-Content-Type-Options": string;
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "*/*": unknown;
                };
            };
            /** @description Not modified: the content is unchanged. */
            304: {
                headers: {
                    /** @description The SHA-256 of the content, quoted (a strong entity-tag). */
                    ETag: string;
                    /** @description When Custody stored these bytes. */
                    "Last-Modified"?: string;
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            412: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            414: components["responses"]["UriTooLong"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            416: {
                headers: {
                    /** @description `bytes *\/<size>` */
                    "Content-Range": string;
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    getManifest: {
        parameters: {
            query?: {
                format?: "json" | "csv";
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The manifest (streamed). */
            200: {
                headers: {
                    /** @description `attachment; filename="manifest-<collection>-<time>.<format>"` */
                    "Content-Disposition": string;
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                    "text/csv": string;
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            414: components["responses"]["UriTooLong"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    pairCredentials: {
        parameters: {
            query: {
                /** @description The one-time pairing code. */
                auth_code: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            414: components["responses"]["UriTooLong"];
            415: components["responses"]["UnsupportedMediaType"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    listRuns: {
        parameters: {
            query?: {
                /** @description The `cursor` of the previous page. */
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        cursor: string | null;
                        runs: {
                            /** @description Attempts counted towards the limit of 3: times the run was taken up (> 1 after a crash, a lost lease or a stop for lack of progress), less those a process gave back by shutting down while the run made progress (0 until the next process takes it up). */
                            attempt: number;
                            /** @description The reconciliation's categories with its numbers (GET …/runs/{run_id}/reconciliation `totals`, live while the run is active): listed = collected + unchanged + excluded + not_present + failed. */
                            counters: {
                                bytes: number;
                                collected: number;
                                excluded: number;
                                failed: number;
                                listed: number;
                                not_present: number;
                                /** @description Pieces a resumed run saw a second time: not in `listed`, in no outcome. */
                                skipped: number;
                                unchanged: number;
                            };
                            /** @description The custodians (provider user ids, or e-mails when the event named no id) an `event` run was limited to; null for a run of the whole collection. */
                            custodians: string[] | null;
                            error: string | null;
                            error_count: number;
                            /** @description The first recorded errors: items that failed and why. */
                            errors: {
                                datetime: string;
                                kind: string | null;
                                reason: string;
                                source_id: string | null;
                            }[];
                            /** @description More errors were recorded than shown; the manifest lists them all. */
                            errors_truncated: boolean;
                            finished_datetime: string | null;
                            run_id: string;
                            started_datetime: string | null;
                            /**
                             * @description `succeeded`: every piece the filters selected was collected, unchanged, excluded by the filters or not present at the source. `completed_with_errors`: the run finished but some pieces failed (`counters.failed` > 0); the collection stays `synced`, its `status_reason` says how many and where to look (GET …/runs/{run_id}/reconciliation), and the failed pieces are retried by the following runs. `failed`: nothing could be collected, or the run stopped on an error it retries with backoff. `error`: a person must act (pair again, grant a scope). `cancelled`: stopped on request; what was collected stays.
                             * @enum {string}
                             */
                            status: "queued" | "running" | "succeeded" | "completed_with_errors" | "failed" | "error" | "cancelled";
                            /** @description What queued the run: `start` (POST start or PATCH pending), `schedule` (the auto/arch re-sync), `retry` (after a failure), `event` (a provider event). */
                            trigger: string;
                        }[];
                    };
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            414: components["responses"]["UriTooLong"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    getRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                run_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Attempts counted towards the limit of 3: times the run was taken up (> 1 after a crash, a lost lease or a stop for lack of progress), less those a process gave back by shutting down while the run made progress (0 until the next process takes it up). */
                        attempt: number;
                        /** @description The reconciliation's categories with its numbers (GET …/runs/{run_id}/reconciliation `totals`, live while the run is active): listed = collected + unchanged + excluded + not_present + failed. */
                        counters: {
                            bytes: number;
                            collected: number;
                            excluded: number;
                            failed: number;
                            listed: number;
                            not_present: number;
                            /** @description Pieces a resumed run saw a second time: not in `listed`, in no outcome. */
                            skipped: number;
                            unchanged: number;
                        };
                        /** @description The custodians (provider user ids, or e-mails when the event named no id) an `event` run was limited to; null for a run of the whole collection. */
                        custodians: string[] | null;
                        error: string | null;
                        error_count: number;
                        /** @description The first recorded errors: items that failed and why. */
                        errors: {
                            datetime: string;
                            kind: string | null;
                            reason: string;
                            source_id: string | null;
                        }[];
                        /** @description More errors were recorded than shown; the manifest lists them all. */
                        errors_truncated: boolean;
                        finished_datetime: string | null;
                        /** @description Absent until a request has been made with the wallet. */
                        provider_budget?: {
                            ceiling_per_second: number | null;
                            /** @description When the rate was last learned (ISO 8601). */
                            learned_at: string;
                            operator_ceiling_per_second: number | null;
                            /** @description `zoom` or `microsoft`. */
                            provider: string;
                            /** @description The request rate (Zoom: requests, OneDrive: SharePoint resource units, per second) learned for this collection's wallet from the provider's answers: raised while they are clean, cut on a 429, capped by a limit the provider states. Shared by every worker and every collection using the wallet, and kept across runs; its value now, not when the run ended. */
                            rate_per_second: number;
                        };
                        run_id: string;
                        started_datetime: string | null;
                        /**
                         * @description `succeeded`: every piece the filters selected was collected, unchanged, excluded by the filters or not present at the source. `completed_with_errors`: the run finished but some pieces failed (`counters.failed` > 0); the collection stays `synced`, its `status_reason` says how many and where to look (GET …/runs/{run_id}/reconciliation), and the failed pieces are retried by the following runs. `failed`: nothing could be collected, or the run stopped on an error it retries with backoff. `error`: a person must act (pair again, grant a scope). `cancelled`: stopped on request; what was collected stays.
                         * @enum {string}
                         */
                        status: "queued" | "running" | "succeeded" | "completed_with_errors" | "failed" | "error" | "cancelled";
                        /** @description What queued the run: `start` (POST start or PATCH pending), `schedule` (the auto/arch re-sync), `retry` (after a failure), `event` (a provider event). */
                        trigger: string;
                        /** @description The run's units when it was split into one job per custodian (empty otherwise). */
                        units: {
                            /** @description Attempts counted towards the limit of 3: times the unit was taken up (> 1 after a crash, a lost lease or a stop for lack of progress), less those a process gave back by shutting down while the unit made progress (0 until the next process takes it up). */
                            attempt: number;
                            error: string | null;
                            last_progress_at: string | null;
                            /** @description `queued`, `running`, `done`, `failed` or `cancelled`. */
                            status: string;
                            /** @description The custodian (provider user id) or Zoom channel the unit collects. */
                            unit: string;
                        }[];
                    };
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            414: components["responses"]["UriTooLong"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    cancelRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                run_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            202: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        run_id: string;
                        status: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            409: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            414: components["responses"]["UriTooLong"];
            415: components["responses"]["UnsupportedMediaType"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    getReconciliation: {
        parameters: {
            query?: {
                format?: "json" | "csv";
                /** @description CSV only. */
                rows?: "custodians" | "exceptions";
            };
            header?: never;
            path: {
                id: string;
                run_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The reconciliation. */
            200: {
                headers: {
                    /** @description `attachment; filename="reconciliation-<run>-<rows>.csv"` (CSV only) */
                    "Content-Disposition"?: string;
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description listed = collected + unchanged + excluded + not_present + failed, in the totals and for every custodian. */
                        balanced: boolean;
                        custodians: {
                            /** @description Stored by this run (new or changed): the items this run wrote, as the items API lists them with this `run_id`. */
                            collected: number;
                            /** @description The provider user id (as on items' `custodian`); the channel id for a Zoom channel. */
                            custodian: string;
                            /** @description The custodian's e-mail as collected; null for a Zoom channel. */
                            custodian_email: string | null;
                            /** @description The custodian's name as collected (a Zoom channel: its name); kept after the user is deleted at the provider. */
                            custodian_name: string | null;
                            /** @description The same as `custodian_email`. */
                            email: string | null;
                            exceptions: {
                                /** @description An item kind, or what could not be listed: `chat_page`, `recording_list`, `custodian`, `channel`, `chat_history`. */
                                kind: string;
                                name: string;
                                /** @description `not_reached`: the run was cancelled or stopped before it got there. `provider_limit`: the provider does not serve it at all (Zoom's Team Chat API reaches back 6 months: kind `chat_history`, once per unit whose history the run would have reached further back); not counted in `listed`, not a failure, never retried. */
                                outcome: "failed" | "not_present" | "not_reached" | "provider_limit";
                                reason: string;
                                source_id: string;
                            }[];
                            /** @description Found at the source but left out by the sync filters (e.g. a recording file type not selected). */
                            excluded: number;
                            /** @description Pieces that could not be collected. A failure that kept items from being listed (a page of messages) counts 1. */
                            failed: number;
                            /** @description Pieces the run found within the selection (or that it tried to list), each counted once. */
                            listed: number;
                            /** @description Optional pieces the source does not have (a 404 on a meeting's AI summary) or that vanished between listing and download. */
                            not_present: number;
                            /** @description Already stored with the same version; nothing downloaded. */
                            unchanged: number;
                            /** @description `custodian` or `channel`. */
                            unit_kind: string;
                        }[];
                        run_id: string;
                        /** @description The run status (see GET …/runs). */
                        status: string;
                        totals: {
                            /** @description Stored by this run (new or changed): the items this run wrote, as the items API lists them with this `run_id`. */
                            collected: number;
                            /** @description Found at the source but left out by the sync filters (e.g. a recording file type not selected). */
                            excluded: number;
                            /** @description Pieces that could not be collected. A failure that kept items from being listed (a page of messages) counts 1. */
                            failed: number;
                            /** @description Pieces the run found within the selection (or that it tried to list), each counted once. */
                            listed: number;
                            /** @description Optional pieces the source does not have (a 404 on a meeting's AI summary) or that vanished between listing and download. */
                            not_present: number;
                            /** @description Already stored with the same version; nothing downloaded. */
                            unchanged: number;
                        };
                    };
                    "text/csv": string;
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            414: components["responses"]["UriTooLong"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    startCollection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        created: boolean;
                        run_id: string;
                        sync_status: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            409: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            414: components["responses"]["UriTooLong"];
            415: components["responses"]["UnsupportedMediaType"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    listUsers: {
        parameters: {
            query?: {
                /** @description Page size. `conf`: default and maximum 300. `edrive`: default 100, maximum 999. Larger values are clamped. */
                limit?: number;
                /** @description `edrive`: the previous `next_marker`; omit for the first page. */
                marker?: string;
                /** @description `conf`: the previous `next_page_token`; omit for the first page. */
                offset?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": ({
                        /** @description Pass it as `offset` for the next page; null on the last page. */
                        next_page_token: string | null;
                        results: ({
                            /** @description The profile as the meeting platform returns it. */
                            data: {
                                email?: string | null;
                                first_name?: string | null;
                                id?: string | null;
                                last_name?: string | null;
                                /** @description active, inactive or pending */
                                status?: string | null;
                            } & {
                                [key: string]: unknown;
                            };
                            /** @description Use it in `account_owners` filters. */
                            id: string;
                        } & {
                            [key: string]: unknown;
                        })[];
                    } & {
                        [key: string]: unknown;
                    }) | ({
                        entries: ({
                            department?: string | null;
                            display_name?: string | null;
                            /** @description Use it as a top-level key of `sync_filters`. */
                            id: string;
                            job_title?: string | null;
                            mail?: string | null;
                            office_location?: string | null;
                            user_principal_name?: string | null;
                        } & {
                            [key: string]: unknown;
                        })[];
                        /** @description The page size used. */
                        limit: number;
                        /** @description Pass it as `marker` for the next page; null on the last page. */
                        next_marker: string | null;
                    } & {
                        [key: string]: unknown;
                    });
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            409: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            414: components["responses"]["UriTooLong"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            502: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAuthorizationUrl: {
        parameters: {
            query: {
                /** @description Where the browser is sent back; must be on the account allowlist. */
                redirect_to: string;
                /** @description A scope set of the connector, e.g. `preservation` for `conf` (legal-hold flows). */
                scopes_type?: string;
                /** @description Opaque client value, returned unchanged on the redirect to `redirect_to`. */
                state?: string;
            };
            header?: never;
            path: {
                type: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description Open it in the browser of the user (or admin) who consents. */
                        authorization_url: string;
                    };
                };
            };
            /** @description Redirect to the provider; `Location` is the authorization URL. */
            302: {
                headers: {
                    /** @description The provider's authorization URL. */
                    Location: string;
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            414: components["responses"]["UriTooLong"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    listHolds: {
        parameters: {
            query?: {
                /** @description The `cursor` of the previous page. */
                cursor?: string;
                limit?: number;
                status?: "active" | "released";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        cursor: string | null;
                        items: {
                            collection_ids: string[];
                            /** @description The API client that placed it. */
                            created_by: string | null;
                            /** Format: date-time */
                            creation_datetime: string;
                            description: string;
                            name: string;
                            onna_id: string;
                            released_at: string | null;
                            /** @description The API client that released it. */
                            released_by: string | null;
                            /** @description A released hold stays readable, with its history. */
                            status: "active" | "released";
                            /** @description Covers every collection of this workspace, present and future. */
                            workspace_id: string | null;
                        }[];
                    };
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            417: components["responses"]["ExpectationFailed"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    createHold: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    collection_ids?: string[];
                    description?: string;
                    name: string;
                    workspace_id?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        onna_id: string;
                    };
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            417: components["responses"]["ExpectationFailed"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    getHold: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        collection_ids: string[];
                        /** @description The API client that placed it. */
                        created_by: string | null;
                        /** Format: date-time */
                        creation_datetime: string;
                        description: string;
                        name: string;
                        onna_id: string;
                        released_at: string | null;
                        /** @description The API client that released it. */
                        released_by: string | null;
                        /** @description A released hold stays readable, with its history. */
                        status: "active" | "released";
                        /** @description Covers every collection of this workspace, present and future. */
                        workspace_id: string | null;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            414: components["responses"]["UriTooLong"];
            417: components["responses"]["ExpectationFailed"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    releaseHold: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            409: {
                headers: {
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            414: components["responses"]["UriTooLong"];
            415: components["responses"]["UnsupportedMediaType"];
            417: components["responses"]["ExpectationFailed"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    completeOAuthCallback: {
        parameters: {
            query?: {
                code?: string;
                error?: string;
                error_description?: string;
                state?: string;
            };
            header?: never;
            path: {
                type: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Back to `redirect_to` with `code` and `state`, or `error`, `error_description` and `state`; or on to the provider's next step. */
            302: {
                headers: {
                    /** @description `redirect_to` with the outcome, or the provider's next step. */
                    Location: string;
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            414: components["responses"]["UriTooLong"];
            417: components["responses"]["ExpectationFailed"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            default: {
                headers: {
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    issueToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": {
                    client_id?: string;
                    client_secret?: string;
                    grant_type?: string;
                    refresh_token?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    /** @description `no-store` (RFC 6749 §5.1) */
                    "Cache-Control": string;
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        access_token: string;
                        /** @description Seconds until the access token expires. */
                        expires_in: number;
                        /** @description Single use: each refresh returns a new one and the old one stops working. */
                        refresh_token: string;
                        /** @enum {string} */
                        token_type: "bearer";
                    };
                };
            };
            /** @description Default Response */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: "invalid_request" | "invalid_client" | "invalid_grant" | "unsupported_grant_type";
                        error_description: string;
                    } | components["schemas"]["Error"];
                };
            };
            /** @description RFC 6749 §5.2 */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    /** @description `Basic realm="custody"`: authenticate the client (RFC 6749 §5.2). */
                    "WWW-Authenticate": string;
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: "invalid_request" | "invalid_client" | "invalid_grant" | "unsupported_grant_type";
                        error_description: string;
                    };
                };
            };
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    searchItems: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    collection_ids?: string[];
                    cursor?: string;
                    custodians?: string[];
                    /** @description Inclusive: 2024-05-01 or 2024-05-01T09:30:00Z. */
                    date_from?: string;
                    /** @description Inclusive: a date means the whole day. */
                    date_to?: string;
                    /** @default false */
                    include_deleted?: boolean;
                    kinds?: string[];
                    /** @example "quarterly budget" OR forecast* NOT name:draft */
                    query: string;
                    /** @default 20 */
                    size?: number;
                    workspace_id?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        cursor: string | null;
                        results: {
                            /** @description HTML-escaped snippets; matches wrapped in <mark>. */
                            highlights: string[];
                            item: {
                                collected_datetime: string;
                                collection_id: string;
                                created_datetime: string | null;
                                custodian: string | null;
                                custodian_email: string | null;
                                custodian_name: string | null;
                                deleted_at_source: string | null;
                                hash_verified: boolean | null;
                                /** @description What the item is; each collection type's connector defines its kinds (listed under the `kind` parameter of the items list). */
                                kind: string;
                                md5: string | null;
                                /** @description The provider's fields. */
                                metadata: {
                                    [key: string]: unknown;
                                };
                                mime_type: string | null;
                                modified_datetime: string | null;
                                name: string;
                                onna_id: string;
                                path: string;
                                provider_hash: {
                                    type: string;
                                    value: string;
                                } | null;
                                run_id: string;
                                sha256: string | null;
                                size: number | null;
                                /** @description The provider's own id of the thing. */
                                source_id: string;
                            };
                            score: number;
                        }[];
                        /** @description Every match when `total_relation` is `eq`; 10,000 (more match) when `gte`. */
                        total: number;
                        /** @description `eq`: `total` counts every match. `gte`: more than `total` items match (see Totals above). */
                        total_relation: "eq" | "gte";
                    };
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    getSigningKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        keys: {
                            /** @enum {string} */
                            crv: "Ed25519";
                            kid: string;
                            /** @enum {string} */
                            kty: "OKP";
                            /** @enum {string} */
                            use: "sig";
                            x: string;
                        }[];
                    };
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            417: components["responses"]["ExpectationFailed"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    listWallets: {
        parameters: {
            query?: {
                /** @description The `cursor` of the previous page. */
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        cursor: string | null;
                        items: {
                            config_type: string;
                            /** Format: date-time */
                            creation_datetime: string;
                            credential_type_name: string;
                            name: string;
                            onna_id: string;
                            /** @description Whether pairing has stored a grant. */
                            paired: boolean;
                            paired_datetime: string | null;
                        }[];
                    };
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    createWallet: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * @example conf
                     * @example edrive
                     */
                    config_type: string;
                    /** @example Datasource */
                    credential_type_name: string;
                    name: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        onna_id: string;
                    };
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    getWallet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        config_type: string;
                        /** Format: date-time */
                        creation_datetime: string;
                        credential_type_name: string;
                        name: string;
                        onna_id: string;
                        /** @description Whether pairing has stored a grant. */
                        paired: boolean;
                        paired_datetime: string | null;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            414: components["responses"]["UriTooLong"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    deleteWallet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            409: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            414: components["responses"]["UriTooLong"];
            415: components["responses"]["UnsupportedMediaType"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    listWebhookEndpoints: {
        parameters: {
            query?: {
                /** @description The `cursor` of the previous page. */
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        cursor: string | null;
                        items: {
                            /** Format: date-time */
                            created: string;
                            events: string[];
                            id: string;
                            url: string;
                        }[];
                    };
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    createWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    events: ("run.finished" | "collection.error" | "hold.placed" | "hold.released" | "export.finished")[];
                    /** @example https://hooks.example.com/custody */
                    url: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        created: string;
                        events: string[];
                        id: string;
                        /** @description Signs every delivery. Shown only here. */
                        secret: string;
                        url: string;
                    };
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    getWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        created: string;
                        events: string[];
                        id: string;
                        url: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            414: components["responses"]["UriTooLong"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    deleteWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            414: components["responses"]["UriTooLong"];
            415: components["responses"]["UnsupportedMediaType"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                /** @description The `cursor` of the previous page. */
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        cursor: string | null;
                        items: {
                            attempts: number;
                            /** Format: date-time */
                            created: string;
                            delivered: string | null;
                            /** @description The `id` in the delivered body; the same event has the same id at every endpoint. */
                            event_id: string;
                            id: string;
                            last_error: string | null;
                            /** @description The receiver's HTTP status of the last attempt; null when it was not reached. */
                            last_status_code: number | null;
                            next_attempt: string | null;
                            /**
                             * @description `pending` while attempts remain; `failed` once retries are given up.
                             * @enum {string}
                             */
                            status: "pending" | "succeeded" | "failed";
                            type: string;
                        }[];
                    };
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            414: components["responses"]["UriTooLong"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    receiveMicrosoftNotification: {
        parameters: {
            query?: {
                validationToken?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    value: {
                        changeType?: string;
                        clientState?: string;
                        id?: string;
                        lifecycleEvent?: string;
                        resource?: string;
                        subscriptionExpirationDateTime?: string;
                        subscriptionId?: string;
                        tenantId?: string;
                    }[];
                };
                "text/plain": string;
            };
        };
        responses: {
            /** @description The validation token, unaltered. */
            200: {
                headers: {
                    /** @description `nosniff` */
                    "X-Content-Type-Options": string;
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description Accepted. */
            202: {
                headers: {
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            413: {
                headers: {
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            417: components["responses"]["ExpectationFailed"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    receiveZoomWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    download_token?: string;
                    event: string;
                    event_ts?: number;
                    payload: Record<string, never>;
                };
            };
        };
        responses: {
            /** @description The endpoint validation answer. */
            200: {
                headers: {
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        encryptedToken: string;
                        plainToken: string;
                    };
                };
            };
            /** @description Accepted. */
            204: {
                headers: {
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            413: {
                headers: {
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            417: components["responses"]["ExpectationFailed"];
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    listWorkspaces: {
        parameters: {
            query?: {
                /** @description The `cursor` of the previous page. */
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        cursor: string | null;
                        items: {
                            /** Format: date-time */
                            creation_datetime: string;
                            description: string;
                            /** Format: date-time */
                            modification_datetime: string;
                            name: string;
                            onna_id: string;
                        }[];
                    };
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    createWorkspace: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    description: string;
                    name: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        onna_id: string;
                    };
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    getWorkspace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        creation_datetime: string;
                        description: string;
                        /** Format: date-time */
                        modification_datetime: string;
                        name: string;
                        onna_id: string;
                    };
                };
            };
            400: components["responses"]["BadRequest"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            414: components["responses"]["UriTooLong"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    deleteWorkspace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No content */
            204: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            400: components["responses"]["BadRequest"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            409: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            414: components["responses"]["UriTooLong"];
            415: components["responses"]["UnsupportedMediaType"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
    listWorkspaceCollections: {
        parameters: {
            query?: {
                /** @description The `cursor` of the previous page. */
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        cursor: string | null;
                        items: {
                            /** Format: date-time */
                            creation_datetime: string;
                            credential_id: string;
                            name: string;
                            onna_id: string;
                            onna_parent_id: string;
                            /** @enum {string} */
                            sync_status: "created" | "pending" | "syncing" | "synced" | "failed" | "error";
                            type: string;
                            /** @enum {string} */
                            type_sync: "one" | "arch" | "auto";
                        }[];
                    };
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            414: components["responses"]["UriTooLong"];
            417: components["responses"]["ExpectationFailed"];
            /** @description The one error shape of every non-2xx response (the OAuth token endpoint speaks RFC 6749). */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Correlation-ID": components["headers"]["X-Correlation-ID"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            431: components["responses"]["HeadersTooLarge"];
            500: components["responses"]["InternalError"];
            501: components["responses"]["NotImplemented"];
        };
    };
}
