/**
 * The error catalogue: every cause the service answers with, its status, code and title in one place. Repositories,
 * connectors and the engine throw a DomainError naming a cause and, for a problem with the input, the field
 * (`cursor`, `collection_ids/2`); the HTTP layer (http/errors.ts) renders it as {code, id, title, detail, links,
 * source}, turning the field into a JSON pointer into the request.
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

interface Entry {
  status: number;
  code: string;
  title: string;
}

const conflictWith = (code: string) => ({ status: 409 as const, code, title: 'Conflict' });

/**
 * The causes. A 409 has distinct causes, each with its own code (documented in the OpenAPI description,
 * openapi-info.ts); `credentials` keeps the generic `00409_conflict` that clients met first.
 */
export const CATALOGUE = {
  /** The request's input is malformed or names something this API did not return (a cursor, a marker). */
  invalid_input: { status: 400, code: '00400_bad_request', title: 'Bad Request' },
  /** The thing named does not exist, or not for this caller. */
  not_found: { status: 404, code: '00404_not_found', title: 'Not Found' },
  /** A byte range outside the content. */
  range_not_satisfiable: { status: 416, code: '00416_range_not_satisfiable', title: 'Range Not Satisfiable' },
  /** The collection's credentials need a person: pair them, or pair again after the provider refused them. */
  credentials: conflictWith('00409_conflict'),
  /** A legal hold covers what would be deleted. */
  legal_hold: conflictWith('00409_legal_hold'),
  /** A run is active: wait for it to end. */
  run_active: conflictWith('00409_run_active'),
  /** The collection's status does not allow the request (e.g. start or queue from this status). */
  status: conflictWith('00409_invalid_status'),
  /** Something the request needs is not saved yet (sync_filters, paired credentials). */
  not_ready: conflictWith('00409_not_ready'),
  /** Another request changed the collection meanwhile: try again. */
  concurrent_change: conflictWith('00409_concurrent_change'),
  /** The run has already ended (cancel of a finished run). */
  run_ended: conflictWith('00409_run_ended'),
  /** Something still uses what would be deleted (a wallet bound to a collection). */
  in_use: conflictWith('00409_in_use'),
  /** The legal hold was released already (it stays readable, with its history). */
  hold_released: conflictWith('00409_hold_released'),
  /** The export has already ended (cancel of a finished export). */
  export_ended: conflictWith('00409_export_ended'),
  /** The collection's type has no connector on this server. */
  no_connector: conflictWith('00409_conflict'),
  /** The sync filters break the rules of the collection type (the field points into them). */
  invalid_filters: { status: 422, code: '00422_unprocessable_entity', title: 'Unprocessable Entity' },
} as const satisfies Record<string, Entry>;

export type Cause = keyof typeof CATALOGUE;
export type ConflictCause = {
  [K in Cause]: (typeof CATALOGUE)[K]['status'] extends 409 ? K : never;
}[Cause];

/** A refusal of the domain: a cause of the catalogue, a detail for the caller, and the input field at fault. */
export class DomainError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  constructor(
    readonly kind: Cause,
    readonly detail: string,
    /** The input at fault, as a path inside the request's query or body (`cursor`, `collection_ids/2`). */
    readonly field?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    ({ status: this.status, code: this.code, title: this.title } = CATALOGUE[kind]);
  }
}

export const invalidInput = (detail: string, field?: string) => new DomainError('invalid_input', detail, field);
export const notFound = (what: string, field?: string) => new DomainError('not_found', `${what} not found.`, field);
export const conflict = (cause: ConflictCause, detail: string, field?: string) => new DomainError(cause, detail, field);
