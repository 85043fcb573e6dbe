import type { FastifyRequest } from 'fastify';
import type { App } from '../app.ts';
import { AppError, badRequest } from './errors.ts';
import { storable } from '../domain/text.ts';
import { unsupportedMediaType } from './errors.ts';

/**
 * Input the stores cannot keep faithfully is refused at the edge, naming the field, before any route or store
 * sees it: the same 400 on SQLite and PostgreSQL (which refuses NUL in text and in JSON), instead of a 500 on one.
 */

function pointerPart(key: string): string {
  return storable(key) ? key.replace(/~/g, '~0').replace(/\//g, '~1') : '(unstorable key)';
}

/** The JSON pointer of the first unstorable string (value or key) in `value`, or null. */
export function firstUnstorable(value: unknown, at: string, depth = 0): string | null {
  if (typeof value === 'string') return storable(value) ? null : at;
  if (!value || typeof value !== 'object' || depth > 64) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = firstUnstorable(value[i], `${at}/${i}`, depth + 1);
      if (found) return found;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    // the common case, a storable key with a storable text value, builds no pointer
    if (typeof v === 'string' && storable(v) && storable(key)) continue;
    const here = `${at}/${pointerPart(key)}`;
    if (!storable(key)) return here;
    const found = firstUnstorable(v, here, depth + 1);
    if (found) return found;
  }
  return null;
}

const DECIMAL_INTEGER = /^-?\d{1,15}$/;
const integerFields = new WeakMap<object, string[]>();

/** Path and query parameters the schema types as integers: only plain decimal digits may be coerced (never `Infinity`, `1e400`, `0x10`, `+1`). */
function integerFieldsOf(schema: unknown): string[] {
  if (!schema || typeof schema !== 'object') return [];
  let fields = integerFields.get(schema);
  if (!fields) {
    const props = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
    fields = Object.entries(props)
      .filter(([, s]) => s.type === 'integer' || s.type === 'number')
      .map(([k]) => k);
    integerFields.set(schema, fields);
  }
  return fields;
}

export function installInputChecks(app: App): void {
  app.addHook('preValidation', (req: FastifyRequest, _reply: unknown, done: (err?: Error) => void) =>
    done(inputError(req) ?? undefined),
  );
  // `Content-Type: application/json` with no body at all (a client's default header on a start or a DELETE) is no
  // body, as the spec's "request: none" reads; a route that needs one still answers its 400 naming the body.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  // Routes read JSON: text, or a form (as `curl -d` sends it) anywhere but on a route that reads forms (the token
  // endpoint), is a 415 naming application/json (as is a type with no parser, errors.ts), not a string or a form
  // the schema then misreads. Empty, either is no body.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser(
    ['text/plain', 'application/x-www-form-urlencoded'],
    { parseAs: 'buffer' },
    (req: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
      const form =
        req.routeOptions.config?.forms === true &&
        /^application\/x-www-form-urlencoded/i.test(req.headers['content-type'] ?? '');
      if (form) return done(null, formFields(body.toString('utf8')));
      return body.length === 0 ? done(null, undefined) : done(unsupportedMediaType(req));
    },
  );
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer' },
    (req: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
      if (body.length === 0) return done(null, undefined);
      // JSON is UTF-8 (RFC 8259 §8.1): another charset, or bytes that are not UTF-8, would be stored altered (U+FFFD)
      const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1];
      if (charset !== undefined && !/^utf-?8$/i.test(charset))
        return done(new AppError(415, `JSON bodies must be UTF-8, not ${charset.slice(0, 40)}.`));
      let text: string;
      try {
        text = utf8.decode(body as Buffer);
      } catch {
        return done(badRequest('The body is not valid UTF-8.', '/body'));
      }
      void parseJson(req, text, (err, value) =>
        done(
          err && isJson(text)
            ? badRequest('The body must not hold a "__proto__" key or a "constructor" with a "prototype".', '/body')
            : err,
          value,
        ),
      );
    },
  );
}

/** A form's fields; a repeated field becomes a list (which the token endpoint's schema refuses). */
function formFields(text: string): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const [key, value] of new URLSearchParams(text)) {
    const seen = fields[key];
    fields[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return fields;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function inputError(req: FastifyRequest): Error | null {
  const query = req.query as Record<string, unknown> | undefined;
  const schema = req.routeOptions.schema;
  for (const [where, values, fields] of [
    ['params', req.params as Record<string, unknown> | undefined, integerFieldsOf(schema?.params)],
    ['querystring', query, integerFieldsOf(schema?.querystring)],
  ] as const) {
    for (const field of fields) {
      const raw = values?.[field];
      if (raw === undefined) continue;
      for (const v of Array.isArray(raw) ? raw : [raw]) {
        if (typeof v !== 'string' || !DECIMAL_INTEGER.test(v)) {
          return badRequest(
            `${where} ${field} must be a whole number written in decimal digits.`,
            `/${where}/${field}`,
          );
        }
      }
    }
  }
  const found =
    firstUnstorable(req.params, '/params') ??
    firstUnstorable(query, '/querystring') ??
    firstUnstorable(req.body, '/body');
  if (found)
    return badRequest(
      `${found.slice(1).replace('/', ' ')} contains a NUL character or unpaired surrogate, which cannot be stored.`,
      found,
    );
  return null;
}
