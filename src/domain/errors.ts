/**
 * The error catalogue. Every non-2xx response outside the OAuth token endpoint is an AppError rendered by the
 * one error handler as {code, id, title, detail, links, source}.
 */
const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  417: 'Expectation Failed',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

export function titleOf(status: number): string {
  return TITLES[status] ?? (status >= 500 ? 'Internal Server Error' : 'Bad Request');
}

/** `00404_not_found`: the spec's 429 pattern applied to every status. */
export function codeOf(status: number): string {
  return `00${status}_${titleOf(status)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')}`;
}

/**
 * Distinct causes of a 409, each with its own code (documented in the OpenAPI description, openapi-info.ts).
 * `credentials` keeps the generic `00409_conflict` that clients met first; any status without a cause listed
 * here answers its generic code (codeOf).
 */
export const CONFLICTS = {
  /** The collection's credentials need a person: pair them, or pair again after the provider refused them. */
  credentials: '00409_conflict',
  /** A legal hold covers what would be deleted. */
  legal_hold: '00409_legal_hold',
  /** A run is active: wait for it to end. */
  run_active: '00409_run_active',
  /** The collection's status does not allow the request (e.g. start or queue from this status). */
  status: '00409_invalid_status',
  /** Something the request needs is not saved yet (sync_filters, paired credentials). */
  not_ready: '00409_not_ready',
  /** Another request changed the collection meanwhile: try again. */
  concurrent_change: '00409_concurrent_change',
  /** The run has already ended (cancel of a finished run). */
  run_ended: '00409_run_ended',
  /** Something still uses what would be deleted (a wallet bound to a collection). */
  in_use: '00409_in_use',
  /** The legal hold was released already (it stays readable, with its history). */
  hold_released: '00409_hold_released',
  /** The export has already ended (cancel of a finished export). */
  export_ended: '00409_export_ended',
} as const;
export type ConflictCause = keyof typeof CONFLICTS;

export class AppError extends Error {
  constructor(
    public status: number,
    public detail: string,
    public pointer?: string,
    public headers: Record<string, string> = {},
    /** A code of the catalogue for a distinct cause; the status's generic code otherwise. */
    public code?: string,
  ) {
    super(detail);
  }
}

export const badRequest = (detail: string, pointer?: string) => new AppError(400, detail, pointer);
export const unauthorized = (detail = 'A valid bearer access token is required.') => new AppError(401, detail);
export const notFound = (what: string) => new AppError(404, `${what} not found.`);
export const conflict = (cause: ConflictCause, detail: string, pointer?: string) =>
  new AppError(409, detail, pointer, {}, CONFLICTS[cause]);
export const unprocessable = (detail: string, pointer?: string) => new AppError(422, detail, pointer);
