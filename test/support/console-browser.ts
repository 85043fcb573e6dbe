import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import type { ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { startTestApp, type TestApp } from './app.ts';
import { buildConsoleOnce } from './console-build.ts';
import { freePort } from './process.ts';
import { simulatorEnv } from './scratch-database.ts';

/** Debian's Chromium (`.ci/run` installs it when missing), driven headless by playwright-core. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SHOTS = path.resolve('.ci/screenshots');

/** Builds the console once, makes room for screenshots, and starts a headless Chromium. */
export async function launchConsoleBrowser(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install chromium (.ci/run does), or set CHROMIUM_PATH`);
  // The console as `npm ci` / `npm start` build it, from the sources under test.
  buildConsoleOnce();
  fs.mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A page whose errors go to the test output (a failure then says why). */
export async function consolePage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  watchPage(page);
  return page;
}

export function watchPage(page: Page): void {
  page.setDefaultTimeout(20_000);
  page.on('console', (m) => m.type() === 'error' && process.stderr.write(`[browser] ${m.text()}\n`));
  page.on('pageerror', (e) => process.stderr.write(`[browser] ${e.message}\n`));
}

/** Opens the console at `url` and signs in with the client's credentials; resolves on the first screen. */
export async function signInToConsole(
  page: Page,
  url: string,
  creds: { clientId: string; clientSecret: string },
): Promise<void> {
  await page.goto(url);
  await fillSignIn(page, creds.clientId, creds.clientSecret);
  await page.getByRole('heading', { level: 1, name: 'Workspaces' }).waitFor();
}

/** Types the credentials into the sign-in form and submits it. */
export async function fillSignIn(page: Page, clientId: string, clientSecret: string): Promise<void> {
  await page.getByLabel('Client ID').fill(clientId);
  await page.getByLabel('Client secret').fill(clientSecret);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** A full-page screenshot under .ci/screenshots/. */
export function screenshot(page: Page, name: string): Promise<Buffer> {
  return page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/**
 * The real server for a browser test, on a port chosen before it starts so that PUBLIC_URL (the consent redirect)
 * names it, with the event stream polled fast and the simulators given as its providers.
 */
export async function startConsoleApp(providers: {
  zoom?: ZoomSandbox;
  ms?: MicrosoftSandbox;
  env?: Record<string, string>;
}): Promise<TestApp> {
  const { zoom, ms } = providers;
  const port = await freePort();
  return startTestApp({
    port,
    env: {
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      EVENT_STREAM_POLL_MS: '100',
      ...simulatorEnv(zoom, ms),
      ...providers.env,
    },
  });
}
