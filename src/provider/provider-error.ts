// How a provider request fails, for the connectors and the engine to tell apart (auth refused, network, a status).
export type ProviderErrorCode =
  'http_error' | 'auth_rejected' | 'network_error' | 'aborted' | 'invalid_response' | 'redirect_error';

export interface ProviderErrorInit {
  code: ProviderErrorCode;
  retryable: boolean;
  status?: number;
  providerCode?: string | number;
  body?: unknown;
  requestId?: string;
  cause?: unknown;
}

/** Messages name the method, origin and path only: query strings may hold pre-signed credentials. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  declare readonly code: ProviderErrorCode;
  declare readonly retryable: boolean;
  declare readonly status?: number;
  declare readonly providerCode?: string | number;
  declare readonly body?: unknown;
  declare readonly requestId?: string;

  constructor(message: string, { cause, ...fields }: ProviderErrorInit) {
    super(message, cause === undefined ? undefined : { cause });
    Object.assign(this, fields);
  }
}
