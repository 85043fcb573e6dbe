import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { randomToken } from '../crypto.ts';
import type { SandboxState } from '../state.ts';
import { signedInByHint } from './directory.ts';
import { resolveTenant, sendAadErrorPage, validRedirectUri, withQuery } from './errors.ts';

const CODE_TTL_MS = 10 * 60 * 1000;
type Query = Record<string, string | undefined>;

function formPostPage(redirectUri: string, fields: Array<[string, string | undefined]>): string {
  const esc = (v: string) => v.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const inputs = fields
    .filter((f): f is [string, string] => f[1] !== undefined)
    .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}" />`)
    .join('');
  return `<html><head><title>Working...</title></head><body><form method="POST" name="hiddenform" action="${esc(redirectUri)}">${inputs}<noscript><p>Script is disabled. Click Submit to continue.</p><input type="submit" value="Submit" /></noscript></form><script language="javascript">document.forms[0].submit();</script></body></html>`;
}

function respond(
  reply: FastifyReply,
  redirectUri: string,
  mode: string,
  fields: Array<[string, string | undefined]>,
): FastifyReply {
  if (mode === 'form_post')
    return reply.header('content-type', 'text/html; charset=utf-8').send(formPostPage(redirectUri, fields));
  return reply.redirect(withQuery(redirectUri, fields, mode === 'fragment' ? 'fragment' : 'query'), 302);
}

/**
 * Authorization code flow. There is no interactive sign-in: the tenant admin (users[0]) or the user named by
 * login_hint (a member, or the other organisation's admin) is signed in at once. `sandbox_deny=1` makes the
 * "user" cancel.
 */
export function registerAuthorizeRoute(app: FastifyInstance, state: SandboxState): void {
  app.get('/:tenant/oauth2/v2.0/authorize', async (request, reply) => {
    const q = request.query as Query;
    const tenantName = (request.params as { tenant: string }).tenant;
    const tenantRef = resolveTenant(state, tenantName);
    if (!tenantRef || tenantRef.kind === 'consumers') {
      return sendAadErrorPage(
        state,
        reply,
        90002,
        `Tenant '${tenantName}' not found. Check to make sure you have the correct tenant ID and are signing into the correct cloud.`,
      );
    }
    if (q.client_id !== state.clientId) {
      return sendAadErrorPage(
        state,
        reply,
        700016,
        `Application with identifier '${q.client_id ?? ''}' was not found in the directory '${tenantName}'.`,
      );
    }
    if (!validRedirectUri(state, q.redirect_uri)) {
      return sendAadErrorPage(
        state,
        reply,
        50011,
        `The redirect URI '${q.redirect_uri ?? ''}' specified in the request does not match the redirect URIs configured for the application '${state.clientId}'.`,
      );
    }
    const redirectUri = q.redirect_uri;
    const mode = q.response_mode ?? 'query';
    const error = (code: string, description: string) =>
      respond(reply, redirectUri, mode, [
        ['error', code],
        ['error_description', description],
        ['state', q.state],
      ]);
    if (!['query', 'fragment', 'form_post'].includes(mode)) {
      return error(
        'invalid_request',
        `AADSTS900144: The value '${mode}' is not valid for the parameter 'response_mode'.`,
      );
    }
    if (q.response_type !== 'code') {
      return error(
        'unsupported_response_type',
        `AADSTS700054: response_type '${q.response_type ?? ''}' is not enabled for the application.`,
      );
    }
    if (!q.scope)
      return error('invalid_request', "AADSTS900144: The request body must contain the following parameter: 'scope'.");
    if (q.code_challenge && q.code_challenge_method && !['S256', 'plain'].includes(q.code_challenge_method)) {
      return error(
        'invalid_request',
        `AADSTS501491: Invalid size of Code_Challenge parameter or unsupported method '${q.code_challenge_method}'.`,
      );
    }
    if (q.sandbox_deny === '1') {
      return error('access_denied', 'AADSTS65004: User declined to consent to access the app.');
    }
    const user = signedInByHint(state, q.login_hint);
    if (tenantRef.kind === 'tenant' && tenantRef.id !== user.tid) {
      return sendAadErrorPage(
        state,
        reply,
        50020,
        `User account '${user.upn}' from identity provider does not exist in tenant '${tenantName}' and cannot access the application '${state.clientId}' in that tenant.`,
      );
    }
    const nowMs = state.now().getTime();
    for (const [stale, grant] of state.authCodes) if (grant.expiresAt <= nowMs) state.authCodes.delete(stale);
    const code = randomToken('0.A', 64);
    state.authCodes.set(code, {
      clientId: state.clientId,
      redirectUri,
      scopes: q.scope.split(/\s+/).filter(Boolean),
      userId: user.oid,
      nonce: q.nonce,
      codeChallenge: q.code_challenge,
      codeChallengeMethod: q.code_challenge ? (q.code_challenge_method ?? 'plain') : undefined,
      expiresAt: nowMs + CODE_TTL_MS,
      redeemed: false,
    });
    return respond(reply, redirectUri, mode, [
      ['code', code],
      ['state', q.state],
      ['session_state', randomUUID()],
    ]);
  });
}
