/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument -- this walks an untyped OpenAPI JSON document */
/**
 * What the hooks below the routes put on the wire, written into the OpenAPI document once (a route's schema
 * describes what its handler answers; this describes what every request can meet on its way there): the
 * statuses the edge, the parsers and the error handler give, and the headers every answer or every rate-limited
 * answer carries. A route adds its own headers with `x-response-headers` ({status: {Name: header object}}) and a
 * request body its handler reads raw with `x-request-body` (an OpenAPI request body object), a body that may be left out
with `x-request-body-optional`; `x-never-415` marks a route
 * that never answers 415 (it reads every media type, or refuses them in its own error form).
 */

type Json = Record<string, any>;

const ERROR_CONTENT = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };

const integer = (description: string, required = false) => ({
  description,
  ...(required && { required }),
  schema: { type: 'integer', minimum: 0 },
});

const HEADERS: Json = {
  'X-Correlation-ID': {
    description:
      'On every answer: the id of the request (a well-formed incoming one is echoed); equals `id` in an error body.',
    required: true,
    schema: { type: 'string' },
  },
  'RateLimit-Limit': integer('The budget of the window (requests per minute) this request was counted in.'),
  'RateLimit-Remaining': integer('Requests left in the window.'),
  'RateLimit-Reset': integer('Seconds until the window resets.'),
  'Retry-After': integer('Seconds to wait before retrying.', true),
  'WWW-Authenticate': {
    description:
      'The challenge (RFC 6750 §3): `Bearer`, with `error="invalid_token"` when a token was sent but is invalid, expired or revoked.',
    schema: { type: 'string' },
  },
};

/** Statuses any request can meet before or around its route, by the condition under which they apply. */
const EDGE_RESPONSES: Json = {
  BadRequest: {
    description: 'The request is malformed: its URL, Host, framing, parameters or body.',
    content: ERROR_CONTENT,
  },
  RequestTimeout: {
    description: 'The request (or its body) took too long to arrive; the connection is closed.',
    content: ERROR_CONTENT,
  },
  PayloadTooLarge: {
    description: "The body exceeds the route's limit; the connection is closed.",
    content: ERROR_CONTENT,
  },
  UriTooLong: { description: 'A path segment is too long.', content: ERROR_CONTENT },
  UnsupportedMediaType: {
    description: 'The body has a media type or charset the route does not read.',
    content: ERROR_CONTENT,
  },
  ExpectationFailed: { description: 'An `Expect` other than `100-continue`.', content: ERROR_CONTENT },
  HeadersTooLarge: {
    description: 'The request headers are too large; the connection is closed.',
    content: ERROR_CONTENT,
  },
  InternalError: { description: 'An internal error; quote the id when contacting support.', content: ERROR_CONTENT },
  NotImplemented: { description: 'A transfer coding other than chunked.', content: ERROR_CONTENT },
};

const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete']);
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });

function edgeStatuses(method: string, op: Json, path: string): Record<string, string> {
  const statuses: Record<string, string> = {
    400: 'BadRequest',
    408: 'RequestTimeout',
    417: 'ExpectationFailed',
    431: 'HeadersTooLarge',
    500: 'InternalError',
    501: 'NotImplemented',
  };
  if (path.includes('{')) statuses[414] = 'UriTooLong';
  if (BODY_METHODS.has(method)) {
    statuses[413] = 'PayloadTooLarge';
    // A route that reads every media type (the webhooks, raw) or answers its own error for them (the token endpoint) sets x-never-415.
    if (!op['x-never-415']) statuses[415] = 'UnsupportedMediaType';
  }
  return statuses;
}

function addHeaders(response: Json, names: string[]): void {
  if (response.$ref) return;
  response.headers ??= {};
  for (const name of names) response.headers[name] ??= headerRef(name);
}

/** Completes the generated document in place: edge statuses, common headers, route-declared headers and raw bodies. */
export function describeWire(doc: Json): Json {
  doc.components ??= {};
  doc.components.headers = { ...HEADERS, ...doc.components.headers };
  doc.components.responses = { ...EDGE_RESPONSES, ...doc.components.responses };
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const responses = (op.responses ??= {}) as Json;
      for (const [status, name] of Object.entries(edgeStatuses(method, op, path))) responses[status] ??= ref(name);
      const bearer = op.security === undefined;
      if (bearer)
        responses['401'] ??= { description: 'A valid bearer access token is required.', content: ERROR_CONTENT };
      const limited = responses['429'] !== undefined;
      for (const [status, response] of Object.entries<Json>(responses)) {
        addHeaders(response, ['X-Correlation-ID']);
        if (status === '429') addHeaders(response, ['Retry-After']);
        else if (limited && !(bearer && status === '401'))
          addHeaders(response, ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']);
        if (status === '401' && bearer) addHeaders(response, ['WWW-Authenticate']);
      }
      for (const [status, headers] of Object.entries<Json>(op['x-response-headers'] ?? {})) {
        const response = responses[status] as Json | undefined;
        if (!response)
          throw new Error(`${op.operationId}: x-response-headers names status ${status}, which it does not declare`);
        response.headers = { ...response.headers, ...headers };
      }
      delete op['x-response-headers'];
      if (op['x-request-body']) op.requestBody = op['x-request-body'];
      delete op['x-request-body'];
      if (op['x-request-body-optional'] && op.requestBody) op.requestBody.required = false;
      delete op['x-request-body-optional'];
      delete op['x-never-415'];
    }
  }
  return doc;
}
