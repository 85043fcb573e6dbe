import type { components } from './schema.ts';

/** The service's one error body (every non-2xx answer but the token endpoint's). */
export type ErrorBody = components['schemas']['Error'];
/** RFC 6749 §5.2, the token endpoint's error body. */
export interface OAuthErrorBody {
  error: string;
  error_description: string;
}

/** A non-2xx answer. `body` is what the service sent: the error shape, an RFC 6749 body, or raw text. */
export class CustodyApiError extends Error {
  readonly status: number;
  readonly body: ErrorBody | OAuthErrorBody | string | undefined;
  /** The human sentence to show: the error's `detail` (or `error_description`). */
  readonly detail: string;
  /** The X-Correlation-ID to quote to support. */
  readonly correlationId: string | undefined;

  constructor(status: number, body: unknown, correlationId?: string) {
    const detail = detailOf(body) ?? `The service answered ${status}.`;
    super(`${status}: ${detail}`);
    this.name = 'CustodyApiError';
    this.status = status;
    this.body = body as CustodyApiError['body'];
    this.detail = detail;
    this.correlationId = correlationId ?? (isErrorBody(body) ? body.id : undefined);
  }

  /** The error-shape `code` (e.g. `00404_not_found`), or the RFC 6749 `error`. */
  get code(): string | undefined {
    if (isErrorBody(this.body)) return this.body.code;
    if (typeof this.body === 'object' && this.body && 'error' in this.body) return this.body.error;
    return undefined;
  }
}

export function isErrorBody(body: unknown): body is ErrorBody {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as ErrorBody).code === 'string' &&
    typeof (body as ErrorBody).detail === 'string'
  );
}

function detailOf(body: unknown): string | undefined {
  if (isErrorBody(body)) return body.detail;
  if (typeof body === 'object' && body && typeof (body as OAuthErrorBody).error_description === 'string')
    return (body as OAuthErrorBody).error_description;
  if (typeof body === 'string' && body.trim() !== '') return body.trim().slice(0, 500);
  return undefined;
}
