import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import {
  apiGet,
  authorizeRedirect,
  basicAuth,
  json,
  pairWithSandbox,
  pkcePair,
  tokenRequest,
} from '../../sandbox/zoom/testing.ts';

const REDIRECT = 'http://127.0.0.1:9/v1/oauth/callback/conf';
let clock = Date.parse('2025-03-15T12:00:00Z');
let sb: ZoomSandbox;

beforeAll(async () => {
  sb = await startZoomSandbox({ seed: 7, now: () => new Date(clock), accessTokenTtlSeconds: 60 });
});
afterAll(async () => {
  await sb.close();
});

async function codeFor(extra: Record<string, string> = {}): Promise<URL> {
  return authorizeRedirect(sb, { redirect_uri: REDIRECT, state: 'client-state', ...extra });
}

describe('zoom sandbox: OAuth', () => {
  it('auto-consents with a code and the state, and exchanges it with a PKCE verifier', async () => {
    const { verifier, challenge } = pkcePair();
    const back = await codeFor({ code_challenge: challenge, code_challenge_method: 'S256' });
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe('client-state');
    const code = back.searchParams.get('code')!;
    const res = await tokenRequest(sb, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ token_type: 'bearer', expires_in: 60, api_url: sb.oauthUrl });
    expect(body.access_token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(typeof body.refresh_token).toBe('string');
    expect(body.scope.split(' ')).toContain('cloud_recording:read:list_user_recordings:admin');
    expect((await apiGet(sb, body.access_token, '/users/me')).status).toBe(200);
  });

  it('refuses a wrong verifier, and a code is single-use', async () => {
    const { challenge } = pkcePair();
    const code = (await codeFor({ code_challenge: challenge, code_challenge_method: 'S256' })).searchParams.get(
      'code',
    )!;
    const wrong = await tokenRequest(sb, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: 'nope',
    });
    expect(wrong.status).toBe(400);
    expect(await json(wrong)).toEqual({ reason: 'Invalid code_verifier', error: 'invalid_grant' });
    const again = await tokenRequest(sb, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: 'nope',
    });
    expect((await json(again)).error).toBe('invalid_grant');

    const plain = (await codeFor()).searchParams.get('code')!;
    expect(
      (await tokenRequest(sb, { grant_type: 'authorization_code', code: plain, redirect_uri: REDIRECT })).status,
    ).toBe(200);
    expect(
      (await tokenRequest(sb, { grant_type: 'authorization_code', code: plain, redirect_uri: REDIRECT })).status,
    ).toBe(400);
  });

  it('lets a code expire after 5 minutes by the clock and checks the redirect_uri', async () => {
    const code = (await codeFor()).searchParams.get('code')!;
    clock += 5 * 60_000 + 1;
    const res = await tokenRequest(sb, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT });
    expect(await json(res)).toEqual({ reason: 'Code is expired', error: 'invalid_grant' });
    const other = (await codeFor()).searchParams.get('code')!;
    const mismatch = await tokenRequest(sb, {
      grant_type: 'authorization_code',
      code: other,
      redirect_uri: 'http://127.0.0.1:9/else',
    });
    expect(mismatch.status).toBe(400);
  });

  it('redirects with error=access_denied when the user declines', async () => {
    const back = await codeFor({ sandbox_deny: '1' });
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('client-state');
    expect(back.searchParams.has('code')).toBe(false);
  });

  it('authenticates the client with Basic and accepts parameters in the query string', async () => {
    const code = (await codeFor()).searchParams.get('code')!;
    const bad = await tokenRequest(
      sb,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT },
      `Basic ${Buffer.from('sandbox-zoom-client:wrong').toString('base64')}`,
    );
    expect(bad.status).toBe(401);
    expect((await json(bad)).error).toBe('invalid_client');
    const fresh = (await codeFor()).searchParams.get('code')!;
    const query = new URLSearchParams({ grant_type: 'authorization_code', code: fresh, redirect_uri: REDIRECT });
    const res = await fetch(`${sb.oauthUrl}/oauth/token?${query}`, {
      method: 'POST',
      headers: { authorization: basicAuth(sb) },
    });
    expect(res.status).toBe(200);
  });

  it('rotates refresh tokens: the new one works and the old one dies', async () => {
    const first = await pairWithSandbox(sb, REDIRECT);
    const r1 = await tokenRequest(sb, { grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(r1.status).toBe(200);
    const second = await json(r1);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const replay = await tokenRequest(sb, { grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(replay.status).toBe(400);
    expect(await json(replay)).toEqual({ reason: 'Invalid Token!', error: 'invalid_grant' });
    const r2 = await tokenRequest(sb, { grant_type: 'refresh_token', refresh_token: second.refresh_token });
    expect(r2.status).toBe(200);
    expect((await apiGet(sb, (await json(r2)).access_token, '/users')).status).toBe(200);
  });

  it('expires access tokens by the clock with 401 code 124', async () => {
    const tokens = await pairWithSandbox(sb, REDIRECT);
    clock += 61_000;
    const res = await apiGet(sb, tokens.access_token, '/users');
    expect(res.status).toBe(401);
    expect(await json(res)).toEqual({ code: 124, message: 'Access token is expired.' });
    const refreshed = await tokenRequest(sb, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect((await apiGet(sb, (await json(refreshed)).access_token, '/users')).status).toBe(200);
  });

  it('refuses tokens in the query string', async () => {
    const tokens = await pairWithSandbox(sb, REDIRECT);
    const res = await fetch(`${sb.apiUrl}/users?access_token=${tokens.access_token}`);
    expect(res.status).toBe(401);
    expect((await json(res)).code).toBe(124);
  });

  it('revokeAll kills API access and refresh, while new pairings still work', async () => {
    const tokens = await pairWithSandbox(sb, REDIRECT);
    sb.revokeAll();
    const api = await apiGet(sb, tokens.access_token, '/users');
    expect(api.status).toBe(401);
    expect(await json(api)).toEqual({ code: 124, message: 'Invalid access token.' });
    const refresh = await tokenRequest(sb, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect((await json(refresh)).error).toBe('invalid_grant');
    const again = await pairWithSandbox(sb, REDIRECT);
    expect((await apiGet(sb, again.access_token, '/users')).status).toBe(200);
  });

  it('issues Server-to-Server tokens without a refresh token', async () => {
    const res = await tokenRequest(sb, { grant_type: 'account_credentials', account_id: sb.tenant.accountId });
    const body = await json(res);
    expect(res.status).toBe(200);
    expect(body.refresh_token).toBeUndefined();
    expect((await apiGet(sb, body.access_token, '/users')).status).toBe(200);
  });
});
