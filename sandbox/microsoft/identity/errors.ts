import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SandboxState } from '../state.ts';

const WELL_KNOWN_TENANTS = new Set(['common', 'organizations', 'consumers']);

export type TenantRef = { kind: 'tenant'; id: string } | { kind: 'common' | 'organizations' | 'consumers' };

/** `{tenant}` may be the tenant GUID, its verified domain, or one of the multi-tenant aliases. */
export function resolveTenant(state: SandboxState, segment: string): TenantRef | undefined {
  const lower = segment.toLowerCase();
  if (WELL_KNOWN_TENANTS.has(lower)) return { kind: lower as 'common' | 'organizations' | 'consumers' };
  for (const tenant of [state.model.tenant, state.otherTenant]) {
    if (lower === tenant.id || lower === tenant.domain.toLowerCase()) return { kind: 'tenant', id: tenant.id };
  }
  return undefined;
}

/** Entra timestamps in error bodies look like "2024-05-02 10:11:12Z". */
function aadTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

export function correlationIdOf(request: FastifyRequest): string {
  const query = request.query as Record<string, string | undefined>;
  const header = request.headers['client-request-id'];
  return query['client-request-id'] ?? (typeof header === 'string' ? header : undefined) ?? randomUUID();
}

export function describeAad(
  state: SandboxState,
  code: number,
  text: string,
  correlationId: string,
  traceId: string,
): string {
  return `AADSTS${code}: ${text} Trace ID: ${traceId} Correlation ID: ${correlationId} Timestamp: ${aadTimestamp(state.now())}`;
}

/** The token endpoint's error JSON (reference §1.5): error, error_description, error_codes, timestamp, ids. */
export function sendAadError(
  state: SandboxState,
  request: FastifyRequest,
  reply: FastifyReply,
  status: 400 | 401,
  error: string,
  code: number,
  text: string,
): FastifyReply {
  const correlationId = correlationIdOf(request);
  const traceId = randomUUID();
  return reply
    .code(status)
    .header('content-type', 'application/json; charset=utf-8')
    .header('x-ms-request-id', traceId)
    .header('cache-control', 'no-store, no-cache')
    .send({
      error,
      error_description: describeAad(state, code, text, correlationId, traceId),
      error_codes: [code],
      timestamp: aadTimestamp(state.now()),
      trace_id: traceId,
      correlation_id: correlationId,
      error_uri: `${state.loginUrl}/error?code=${code}`,
    });
}

/** When the redirect URI itself cannot be trusted, Entra shows an error page instead of redirecting. */
export function sendAadErrorPage(state: SandboxState, reply: FastifyReply, code: number, text: string): FastifyReply {
  const traceId = randomUUID();
  const escaped = `AADSTS${code}: ${text}`.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return reply
    .code(400)
    .header('content-type', 'text/html; charset=utf-8')
    .header('x-ms-request-id', traceId)
    .send(
      `<!DOCTYPE html><html><head><title>Sign in to your account</title></head><body><h1>Sorry, but we're having trouble signing you in.</h1><p id="error">${escaped}</p><p>Trace ID: ${traceId}</p><p>Timestamp: ${aadTimestamp(state.now())}</p></body></html>`,
    );
}

export function validRedirectUri(state: SandboxState, value: string | undefined): value is string {
  if (!value) return false;
  if (state.redirectUris) return state.redirectUris.includes(value);
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

export function withQuery(
  base: string,
  params: Array<[string, string | undefined]>,
  mode: 'query' | 'fragment' = 'query',
): string {
  const search = new URLSearchParams();
  for (const [key, value] of params) if (value !== undefined) search.append(key, value);
  if (mode === 'fragment') return `${base}#${search.toString()}`;
  return `${base}${base.includes('?') ? '&' : '?'}${search.toString()}`;
}
