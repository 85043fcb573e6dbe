import type { MicrosoftSandbox } from './index.ts';

/**
 * Test convenience: performs the admin-consent redirect over HTTP, then obtains an app-only token with the
 * client-credentials grant, exactly as a connector would.
 */
export async function consentAndGetAppToken(sandbox: MicrosoftSandbox): Promise<string> {
  const consent = await fetch(
    `${sandbox.loginUrl}/${sandbox.tenantId}/adminconsent?client_id=${encodeURIComponent(sandbox.clientId)}&redirect_uri=${encodeURIComponent('http://127.0.0.1/consented')}&state=t`,
    { redirect: 'manual' },
  );
  if (consent.status !== 302) throw new Error(`admin consent answered ${consent.status}`);
  return getAppToken(sandbox);
}

export async function getAppToken(sandbox: MicrosoftSandbox): Promise<string> {
  const response = await fetch(`${sandbox.loginUrl}/${sandbox.tenantId}/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_id: sandbox.clientId,
      client_secret: sandbox.clientSecret,
      scope: 'https://graph.microsoft.com/.default',
      grant_type: 'client_credentials',
    }),
  });
  const body = (await response.json()) as { access_token?: string; error?: string };
  if (!response.ok || !body.access_token)
    throw new Error(`token request failed: ${response.status} ${body.error ?? ''}`);
  return body.access_token;
}
