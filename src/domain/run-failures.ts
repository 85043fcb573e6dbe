// How a run, or one piece of it, fails in a way the engine must tell apart: a person must act (the collection moves
// to `error`), the source refused or deleted a piece, or nothing at all could be collected. Connectors throw them;
// the engine decides what each means for the run (sync/runs/run-end.ts, domain/run-outcome.ts).
import { ProviderError } from '../provider/provider-error.ts';

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

/** Whether a person must act before the work can succeed (`error`, not retried): the run, or one unit of it. */
export function needsUserAction(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof NeedsUserActionError || e instanceof CredentialsMissingError) return true;
    if (e instanceof ProviderError && e.code === 'auth_rejected') return true;
  }
  return false;
}

/**
 * What a person must do before a run of the collection (or a unit of it) can collect anything: the rules the run
 * (sync/execution/runner.ts) and each unit job (sync/execution/unit-context.ts) check. Undefined: nothing.
 */
export function actionBeforeRun(
  collection: { type: string },
  has: { connector: boolean; grant: boolean; filters: boolean },
): NeedsUserActionError | undefined {
  if (!has.connector)
    return new NeedsUserActionError(`no connector for collection type "${collection.type}" on this server`);
  if (!has.grant) return new NeedsUserActionError('re-pair credentials: the wallet has no paired credentials');
  if (!has.filters) return new NeedsUserActionError('no sync_filters saved: PATCH the collection');
  return undefined;
}
