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
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

export function titleOf(status: number): string {
  return TITLES[status] ?? (status >= 500 ? 'Internal Server Error' : 'Bad Request');
}

/** `00404_not_found`: the spec's 429 pattern applied to every status. */
export function codeOf(status: number): string {
  return `00${status}_${titleOf(status).toLowerCase().replace(/[^a-z0-9]+/g, '_')}`;
}

export class AppError extends Error {
  constructor(
    public status: number,
    public detail: string,
    public pointer?: string,
    public headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

export const badRequest = (detail: string, pointer?: string) => new AppError(400, detail, pointer);
export const unauthorized = (detail = 'A valid bearer access token is required.') => new AppError(401, detail);
export const notFound = (what: string) => new AppError(404, `${what} not found.`);
export const conflict = (detail: string, pointer?: string) => new AppError(409, detail, pointer);
export const unprocessable = (detail: string, pointer?: string) => new AppError(422, detail, pointer);
