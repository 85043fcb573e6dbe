import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../../context.ts';
import { type DiscoveryKind } from '../../../connectors/types.ts';
import { conflict, DomainError } from '../../../domain/errors.ts';
import { AppError } from '../../errors.ts';
import { ProviderError } from '../../../provider/provider-error.ts';
import { userFacingMessage } from '../../../sync/providers/user-message.ts';
import { UNPAIRED } from '../../../read/discovery.ts';
import { CredentialsMissingError, GrantRevokedError, NeedsUserActionError } from '../../../domain/run-failures.ts';

/** A discovery page must not hold a request open through a long throttling pause of the provider. */
export const DISCOVERY_TIMEOUT_MS = 60_000;

const REFUSED =
  "the provider refused the collection's credentials (revoked or expired consent): authorize and call pair_credentials again.";

/**
 * The shared path of GET /collections/{id}/{users,channels,folders}: the read side's discovery page with the query
 * as strings, stopped when the client goes or the time is up; provider failures in the error shape.
 */
export async function discover<T>(
  ctx: AppContext,
  input: {
    accountId: string;
    collectionId: string;
    kind: DiscoveryKind;
    query: Record<string, unknown>;
    reply: FastifyReply;
  },
): Promise<T> {
  const clientGone = new AbortController();
  const onClose = () => {
    if (!input.reply.raw.writableFinished) clientGone.abort(new Error('the client closed the connection'));
  };
  input.reply.raw.once('close', onClose);
  const timeout = AbortSignal.timeout(DISCOVERY_TIMEOUT_MS);
  const signal = AbortSignal.any([clientGone.signal, timeout]);
  try {
    // The response schema is the contract: the serializer writes what it declares (and keeps extra fields).
    return (await ctx.reads.discovery.page(
      input.accountId,
      input.collectionId,
      input.kind,
      asStrings(input.query),
      signal,
    )) as T;
  } catch (err) {
    throw translate(err, timeout.aborted);
  } finally {
    input.reply.raw.off('close', onClose);
  }
}

function asStrings(query: Record<string, unknown>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- validated querystring values are scalars
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) out[k] = String(v);
  return out;
}

/** Provider failures in the error shape; a DomainError from the connector (400, 404) passes as it is. */
function translate(err: unknown, timedOut: boolean): unknown {
  if (err instanceof DomainError) return err;
  if (err instanceof CredentialsMissingError) return conflict('credentials', UNPAIRED);
  if (err instanceof GrantRevokedError)
    return conflict('credentials', `${REFUSED} (${userFacingMessage(err.message, 500)})`);
  // e.g. a scope the app lacks: the connector's message names it and says what to do.
  if (err instanceof NeedsUserActionError) return conflict('credentials', userFacingMessage(err.message));
  if (err instanceof ProviderError) {
    if (err.code === 'auth_rejected') return conflict('credentials', REFUSED);
    if (err.code === 'aborted' && timedOut) {
      return new AppError(
        503,
        `the provider did not answer within ${DISCOVERY_TIMEOUT_MS / 1000} seconds (it may be throttling this credential): try again later.`,
      );
    }
    const status = err.status ? ` (HTTP ${err.status})` : '';
    return new AppError(502, `the provider failed to answer${status}: try again later.`);
  }
  return err;
}
