// The id_token checks of the edrive sign-in against a login host whose answers each test controls.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyRs256 } from '../../src/connectors/onedrive/id-token.ts';
import { createOneDriveConnector } from '../../src/connectors/onedrive/index.ts';
import { isOAuthContinuation, ProviderAuthError } from '../../src/connectors/types.ts';

const CLIENT_ID = 'custody-app-id';
const REDIRECT_URI = 'http://127.0.0.1:9/v1/oauth/callback/edrive';
const TID = '0b5e3c0a-8d9f-4a39-9d2e-5f2d6a7b8c9d';
const GLOBAL_ADMIN = '62e90394-69f5-4237-9190-012177145e10';

const published = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const stranger = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const KID = 'key-1';

let server: http.Server;
let loginUrl: string;
let idToken = '';
let tokenForms: URLSearchParams[] = [];
/** When set, the OpenID metadata sends the keys elsewhere (a compromised or spoofed metadata answer). */
let foreignJwksUri: string | undefined;

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function sign(
  claims: Record<string, unknown>,
  opts: { key?: crypto.KeyObject; kid?: string; alg?: string } = {},
): string {
  const head = b64({ typ: 'JWT', alg: opts.alg ?? 'RS256', kid: opts.kid ?? KID });
  const body = b64(claims);
  const signature = crypto
    .sign('sha256', Buffer.from(`${head}.${body}`), opts.key ?? published.privateKey)
    .toString('base64url');
  return `${head}.${body}.${signature}`;
}

function claims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    aud: CLIENT_ID,
    iss: `${loginUrl}/${TID}/v2.0`,
    iat: now,
    nbf: now,
    exp: now + 3600,
    tid: TID,
    oid: 'admin-oid',
    ver: '2.0',
    wids: [GLOBAL_ADMIN],
    ...overrides,
  };
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://login');
    const send = (body: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.method === 'POST' && url.pathname === '/organizations/oauth2/v2.0/token') {
      let raw = '';
      req.on('data', (chunk) => (raw += chunk));
      req.on('end', () => {
        tokenForms.push(new URLSearchParams(raw));
        send({ token_type: 'Bearer', access_token: 'opaque', expires_in: 3600, id_token: idToken });
      });
      return;
    }
    const meta = /^\/([^/]+)\/v2\.0\/\.well-known\/openid-configuration$/.exec(url.pathname);
    if (meta)
      return send({
        issuer: `${loginUrl}/${meta[1]}/v2.0`,
        jwks_uri: foreignJwksUri ?? `${loginUrl}/${meta[1]}/discovery/v2.0/keys`,
      });
    if (url.pathname.endsWith('/discovery/v2.0/keys')) {
      const jwk = published.publicKey.export({ format: 'jwk' });
      return send({ keys: [{ kty: 'RSA', use: 'sig', kid: KID, n: jwk.n, e: jwk.e }] });
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  loginUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const connector = () =>
  createOneDriveConnector({
    clientId: CLIENT_ID,
    clientSecret: 'a-secret-value',
    loginUrl,
    graphUrl: `${loginUrl}/v1.0`,
  });
const signIn = (token: string) => {
  idToken = token;
  tokenForms = [];
  return connector().oauth.completeCallback({
    query: { code: 'the-code' },
    redirectUri: REDIRECT_URI,
    codeVerifier: 'the-verifier',
  });
};
async function refused(token: string): Promise<string> {
  const err = await signIn(token).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ProviderAuthError);
  expect((err as ProviderAuthError).error).toBe('invalid_request');
  return (err as Error).message;
}

describe('edrive sign-in: the id_token decides the tenant only once verified', () => {
  it('accepts a token signed with the published key, for this app, issued by the tenant it names', async () => {
    const next = await signIn(sign(claims()));
    expect(isOAuthContinuation(next) && next.carry).toEqual({ step: 'consent', tid: TID });
    expect(Object.fromEntries(tokenForms[0])).toMatchObject({
      grant_type: 'authorization_code',
      code: 'the-code',
      code_verifier: 'the-verifier',
      redirect_uri: REDIRECT_URI,
      client_id: CLIENT_ID,
      scope: 'openid profile',
    });
  });

  it('refuses a signature by another key, a tampered payload and an unknown key id', async () => {
    expect(await refused(sign(claims(), { key: stranger.privateKey }))).toMatch(/signature does not verify/);
    const [head, , signature] = sign(claims()).split('.');
    expect(
      await refused(
        `${head}.${b64(claims({ tid: '11111111-2222-4333-8444-555555555555', iss: `${loginUrl}/11111111-2222-4333-8444-555555555555/v2.0` }))}.${signature}`,
      ),
    ).toMatch(/signature does not verify/);
    expect(await refused(sign(claims(), { kid: 'other-key' }))).toMatch(/key the tenant does not publish/);
  });

  it('fetches signing keys only from the configured login host', async () => {
    foreignJwksUri = 'http://127.0.0.2:9/keys';
    try {
      const err = await signIn(sign(claims())).catch((e: unknown) => e);
      expect(String((err as Error).message)).toMatch(/jwks_uri away from the login host/);
    } finally {
      foreignJwksUri = undefined;
    }
  });

  it('refuses unsigned and HMAC tokens', async () => {
    expect(await refused(`${b64({ alg: 'none', kid: KID })}.${b64(claims())}.`)).toMatch(/not RS256/);
    const head = b64({ alg: 'HS256', kid: KID });
    const body = b64(claims());
    const secret = published.publicKey.export({ format: 'pem', type: 'spki' });
    const mac = crypto.createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url');
    expect(await refused(`${head}.${body}.${mac}`)).toMatch(/not RS256/);
  });

  it('refuses another audience, an issuer of another tenant, an expired token and a token without a tenant', async () => {
    expect(await refused(sign(claims({ aud: 'someone-else' })))).toMatch(/another application/);
    expect(await refused(sign(claims({ iss: `${loginUrl}/99999999-2222-4333-8444-555555555555/v2.0` })))).toMatch(
      /issuer/,
    );
    expect(await refused(sign(claims({ exp: Math.floor(Date.now() / 1000) - 3600 })))).toMatch(/expired/);
    expect(await refused(sign(claims({ tid: undefined })))).toMatch(/no tenant id/);
    expect(await refused('not-a-jwt')).toMatch(/compact JWT/);
  });

  it('refuses a verified sign-in without an administrator role', async () => {
    await expect(signIn(sign(claims({ wids: ['b79fbf4d-3ef9-4689-8143-76b194e85509'] })))).rejects.toMatchObject({
      error: 'access_denied',
    });
    await expect(signIn(sign(claims({ wids: ['constructor', '__proto__'] })))).rejects.toMatchObject({
      error: 'access_denied',
    });
    const next = await signIn(sign(claims({ wids: ['E8611AB8-C189-46E8-94E1-60213AB1F814'] })));
    expect(isOAuthContinuation(next)).toBe(true);
  });

  it('verifyRs256 returns the claims of a good token and needs an RSA signing key', async () => {
    const jwk = published.publicKey.export({ format: 'jwk' });
    const token = sign({ hello: 'world' });
    expect(await verifyRs256(token, [{ kty: 'RSA', kid: KID, n: jwk.n, e: jwk.e }])).toEqual({ hello: 'world' });
    await expect(verifyRs256(token, [{ kty: 'RSA', kid: KID, use: 'enc', n: jwk.n, e: jwk.e }])).rejects.toThrow(
      /does not publish/,
    );
    await expect(verifyRs256(token, [])).rejects.toThrow(/does not publish/);
  });
});
