// How a run, or one piece of it, fails in a way the engine must tell apart: a person must act (the collection moves
// to `error`), the source refused or deleted a piece, or nothing at all could be collected. Connectors throw them;
// the engine decides what each means for the run (sync/runs/run-end.ts, domain/run-outcome.ts).

/**
 * A failure that retrying cannot fix: a person must act (pair again, grant the app a missing scope). The message
 * says what to do; it is shown to the client as the collection's status_reason and in discovery errors, so it
 * must never contain a token or a secret. The engine moves the collection to `error` instead of retrying.
 */
export class NeedsUserActionError extends Error {
  override name = 'NeedsUserActionError';
}

/** Thrown by refresh when the provider refuses the grant for good (invalid_grant): the user must pair again. */
export class GrantRevokedError extends NeedsUserActionError {
  override name = 'GrantRevokedError';
}

/** The collection has no paired credentials: a person must pair them before anything can be collected. */
export class CredentialsMissingError extends Error {
  override name = 'CredentialsMissingError';
}

/** A content source's first bytes are not the content (e.g. an HTML error page answered with 200). */
export class ContentRejectedError extends Error {
  override name = 'ContentRejectedError';
}

/**
 * The source deleted the thing between its listing and its download (HTTP 404 on the content): the engine
 * records it as deleted at the source, not as a failure.
 */
export class ContentGoneError extends Error {
  override name = 'ContentGoneError';
}

/** Every selected piece failed: the run ends `failed` (retried with backoff) rather than `completed_with_errors`. */
export class NothingCollectedError extends Error {
  override name = 'NothingCollectedError';
}
