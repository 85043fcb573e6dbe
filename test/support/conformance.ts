import fs from 'node:fs';
import { getHttpOperationsFromSpec } from '@stoplight/prism-http';
import { createRequire } from 'node:module';
import type router from '@stoplight/prism-http/dist/router/index.js';
import { validateInput, validateOutput } from '@stoplight/prism-http/dist/validator/index.js';
import type { Call } from './app.ts';

type IHttpOperation = Awaited<ReturnType<typeof getHttpOperationsFromSpec>>[number];
// A CommonJS module whose `exports.default` is the router: required as such (ESM interop differs between loaders).
const route = (createRequire(import.meta.url)('@stoplight/prism-http/dist/router/index.js') as typeof router).default;

/**
 * Every exchange of a test, checked against the committed OpenAPI document by Stoplight Prism's own router and
 * validators (the ones its validating proxy runs): the request against the operation (parameters, media type,
 * body), the answer against the operation's responses (status declared, media type, body schema, headers). One
 * rule of HTTP the validator does not check is added: an answer the document declares without content
 * (204, 304, 302) carries none (RFC 9110 §8.6, §15.4.5).
 */

export interface Exchange {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface Violation {
  exchange: string;
  operation: string | null;
  where: 'route' | 'request' | 'response' | 'http';
  messages: string[];
}

/** A `Call` that may also send a raw body, and says when the request is one the document must refuse. */
export type ConformanceCall = (
  token: string | null,
  method: string,
  path: string,
  init?: NonNullable<Parameters<Call>[3]> & { raw?: string; invalid?: boolean },
) => Promise<Response>;

export interface Conformance {
  /** Every exchange is checked; the Response it returns can be read as usual. */
  call: ConformanceCall;
  /** Check one exchange made some other way (a raw socket, a stream read in part). */
  check(exchange: Exchange, requestIsInvalid?: boolean): void;
  violations: Violation[];
  /** operationId -> statuses seen */
  seen: Map<string, Set<number>>;
  /** operationIds whose requests the document itself finds invalid, with the status the service gave them */
  refusedInvalid: Map<string, Set<number>>;
  operationIds(): string[];
}

function parsedBody(contentType: string | undefined, text: string): unknown {
  if (text === '') return undefined;
  if (contentType && /[/+]json\b/i.test(contentType)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

const messagesOf = (diagnostics: Array<{ message: string; path?: unknown[] }>) =>
  diagnostics.map((d) => `${d.path?.length ? `${d.path.join('.')}: ` : ''}${d.message}`);

export async function conformance(documentPath: string, baseUrl: string): Promise<Conformance> {
  const document = JSON.parse(fs.readFileSync(documentPath, 'utf8')) as object;
  const operations = await getHttpOperationsFromSpec(document);
  const violations: Violation[] = [];
  const seen = new Map<string, Set<number>>();
  const refusedInvalid = new Map<string, Set<number>>();
  const add = (map: Map<string, Set<number>>, id: string, status: number) =>
    map.set(id, (map.get(id) ?? new Set()).add(status));

  function check(x: Exchange, requestIsInvalid = false): void {
    const label = `${x.method} ${x.path}${Object.keys(x.query).length ? `?${new URLSearchParams(x.query as Record<string, string>)}` : ''} -> ${x.status}`;
    const url = { path: x.path, query: x.query };
    const routed = route({ resources: operations, input: { method: x.method.toLowerCase() as never, url } }) as {
      _tag: string;
      left?: Error;
      right?: IHttpOperation;
    };
    if (routed._tag !== 'Right' || !routed.right) {
      violations.push({
        exchange: label,
        operation: null,
        where: 'route',
        messages: [routed.left?.message ?? 'no operation'],
      });
      return;
    }
    const op = routed.right;
    const id = op.iid ?? `${op.method} ${op.path}`;
    add(seen, id, x.status);
    const input = validateInput({
      resource: op,
      element: {
        method: x.method.toLowerCase() as never,
        url,
        headers: x.requestHeaders,
        body: parsedBody(x.requestHeaders['content-type'], x.requestBody ?? ''),
      },
    }) as { _tag: string; left?: Array<{ message: string; path?: unknown[] }> };
    const requestValid = input._tag === 'Right';
    if (requestValid && requestIsInvalid) {
      violations.push({
        exchange: label,
        operation: id,
        where: 'request',
        messages: ['sent as invalid, but the document accepts it'],
      });
    }
    if (!requestValid) {
      // The document refuses this request: the service must refuse it too.
      if (x.status < 400)
        violations.push({
          exchange: label,
          operation: id,
          where: 'request',
          messages: ['the service accepted a request the document refuses', ...messagesOf(input.left ?? [])],
        });
      else if (!requestIsInvalid)
        violations.push({ exchange: label, operation: id, where: 'request', messages: messagesOf(input.left ?? []) });
      else add(refusedInvalid, id, x.status);
    }
    const output = validateOutput({
      resource: op,
      element: { statusCode: x.status, headers: x.headers, body: parsedBody(x.headers['content-type'], x.body) },
    }) as { _tag: string; left?: Array<{ message: string; path?: unknown[] }> };
    if (output._tag !== 'Right')
      violations.push({ exchange: label, operation: id, where: 'response', messages: messagesOf(output.left ?? []) });
    const declared = op.responses.find((r) => r.code === String(x.status));
    const bodiless = x.status === 204 || x.status === 304 || (declared !== undefined && !declared.contents?.length);
    if (
      bodiless &&
      (x.body !== '' || x.headers['content-type'] !== undefined || (x.headers['content-length'] ?? '0') !== '0')
    ) {
      violations.push({
        exchange: label,
        operation: id,
        where: 'http',
        messages: [
          `declared without content, sent content-type ${x.headers['content-type']}, content-length ${x.headers['content-length']}, ${x.body.length} bytes`,
        ],
      });
    }
  }

  const call: ConformanceCall = async (token, method, p, init = {}) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(init.headers ?? {})) headers[k.toLowerCase()] = v;
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (init.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(init.json);
    } else if (init.form) {
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    } else if (init.raw !== undefined) {
      body = init.raw;
    }
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const res = await fetch(`${baseUrl}${p}`, { method, headers, body, redirect: 'manual' });
    const bytes = Buffer.from(await res.arrayBuffer());
    const u = new URL(p, 'http://x');
    const query: Record<string, string | string[]> = {};
    for (const [k, v] of u.searchParams) query[k] = k in query ? [query[k]].flat().concat(v) : v;
    check(
      {
        method,
        path: u.pathname,
        query,
        requestHeaders: headers,
        requestBody: body,
        status: res.status,
        headers: Object.fromEntries(res.headers),
        body: bytes.toString('utf8'),
      },
      init.invalid === true,
    );
    return new Response(res.status === 204 || res.status === 304 ? null : bytes, {
      status: res.status,
      headers: res.headers,
    });
  };

  return {
    call,
    check,
    violations,
    seen,
    refusedInvalid,
    operationIds: () => operations.map((o) => o.iid ?? `${o.method} ${o.path}`),
  };
}
