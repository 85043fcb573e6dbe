import { plainReason } from '../../domain/plain-reason.ts';

/**
 * Text of a NeedsUserActionError as a client may see it (a collection's status_reason, a discovery 409). Messages
 * are written to be safe, and ProviderError already redacts what it quotes; this is the last line of defence for
 * a message that still carries a credential: `Bearer …`, `token=…`, `"refresh_token": "…"` and the like.
 */
const SCHEME = /\b(bearer|basic)\s+[A-Za-z0-9\-._~+/]+=*/gi;
const LABELLED =
  /\b([a-z_]*(?:token|secret|password|assertion|code_verifier|client_secret))(["']?\s*[:=]\s*["']?)([^\s"',;&)]{8,})/gi;

export function userFacingMessage(message: string, max = 1000): string {
  const clean = plainReason(message).replace(SCHEME, '$1 [redacted]').replace(LABELLED, '$1$2[redacted]').trim();
  return (
    (clean.length > max ? `${clean.slice(0, max - 1)}…` : clean) ||
    'the provider needs a person to act on this collection'
  );
}
