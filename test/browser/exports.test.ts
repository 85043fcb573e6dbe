import crypto from 'node:crypto';
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consolePage, launchConsoleBrowser, screenshot, signInToConsole } from '../support/console-browser.ts';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import { jsonOf, newCollection, pairFlow, startTestApp, type TestApp } from '../support/app.ts';
import { microsoftEnv } from '../support/sandbox-env.ts';

const CB = 'https://client.example/console-export';
const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/**
 * The Exports tab in Chromium: options reach the API (global dedupe suppresses the planted duplicates), the row
 * follows the export over the collection's event stream (the tab does not poll: without `export.progress` /
 * `export.finished` it would stay queued), the package downloads with the SHA-256 shown, and the verification
 * hint names the signing key and the `custody verify` command.
 */
describe('the console Exports tab in Chromium', () => {
  let ms: MicrosoftSandbox;
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let creds: { clientId: string; clientSecret: string };
  let token: string;
  let col: string;
  const shot = (name: string) => screenshot(page, name);

  beforeAll(async () => {
    browser = await launchConsoleBrowser();
    ms = await startMicrosoftSandbox({
      seed: 5,
      users: 2,
      usersWithoutDrive: 0,
      folderDepth: 1,
      foldersPerLevel: 1,
      filesPerFolder: 2,
    });
    // The same bytes twice in one drive and once in the other: two suppressed with global dedupe, one with custodian.
    const same = Buffer.from('one contract, three copies\n');
    for (const [i, u] of ms.tenant.users.entries()) {
      const root = ms.listItems(u.id)[0].id;
      ms.mutate.addFile(u.id, root, 'contract.txt', same);
      if (i === 0) ms.mutate.addFile(u.id, root, 'contract copy.txt', same);
    }
    t = await startTestApp({
      env: {
        EVENT_STREAM_POLL_MS: '100',
        ...microsoftEnv(ms),
      },
    });
    creds = await t.client('export-co', [CB]);
    token = await t.token('export-co', [CB]);
    col = await newCollection(t.call, token, 'edrive', 'Drives to export');
    await pairFlow(t.call, token, col, { type: 'edrive', redirectTo: CB, state: 'b1', callbackOrigin: t.url });
    const drive = { all_selected: true, selected: [], excluded: [], filter_type: 'user_folders', filter_name: 'Drive' };
    const filters = Object.fromEntries(ms.tenant.users.map((u) => [u.id, drive]));
    expect(
      (await t.call(token, 'PATCH', `/v1/collections/${col}`, { json: { sync_filters: filters, type_sync: 'one' } }))
        .status,
    ).toBe(204);
    expect((await t.call(token, 'POST', `/v1/collections/${col}/start`)).status).toBe(200);
    await t.waitForStatus(token, col, ['synced'], 30_000);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    page = await consolePage(context);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await ms?.close();
  });

  it('starts an export with options, follows it live, downloads the package and shows how to verify it', async () => {
    try {
      await signInToConsole(page, `${t.url}/console/`, creds);
      await page.evaluate(`location.hash = ${JSON.stringify(`#/collections/${col}/exports`)}`);
      await page.getByRole('heading', { level: 2, name: 'Exports' }).waitFor();
      await page.getByText('No export yet.').waitFor();

      // The installation's signing key, as GET /v1/signing-keys serves it.
      const jwks = (await (await fetch(`${t.url}/v1/signing-keys`)).json()) as { keys: Array<{ kid: string }> };
      await expect.poll(() => page.locator('code.kid').allInnerTexts()).toEqual(jwks.keys.map((k) => k.kid));

      await page.getByLabel('Chat format').selectOption('json');
      await page.getByLabel('Deduplication').selectOption('global');
      await page.getByRole('button', { name: 'Start export' }).click();
      const row = page.locator('tr[data-export]');
      await row.waitFor();
      const exportId = (await row.getAttribute('data-export'))!;
      await row.locator('.badge', { hasText: /^succeeded$/ }).waitFor({ timeout: 60_000 });

      const view = await jsonOf(await t.call(token, 'GET', `/v1/collections/${col}/exports/${exportId}`), 200);
      expect(view).toMatchObject({ status: 'succeeded' });
      expect(view.counts.duplicates_suppressed).toBe(2); // the dedupe option reached the API
      const audit = await jsonOf(await t.call(token, 'GET', `/v1/audit?action=export.create&target=${exportId}`), 200);
      expect(audit.items[0].detail).toMatchObject({ chat_format: 'json', dedupe: 'global' });
      const docs = view.counts.documents;
      expect(await row.locator('.progress-text').innerText()).toBe(`${docs}/${docs}`);
      expect(await row.locator('progress').getAttribute('value')).toBe(String(docs));
      expect(await row.locator('code.sha256').innerText()).toBe(view.sha256);
      expect(await page.locator('pre.verify-hint').innerText()).toBe(
        `custody keys export keys.json\ncustody verify custody-export-${exportId}.zip --keys keys.json`,
      );
      await shot('exports-tab');

      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: `Download ${exportId}` }).click(),
      ]);
      expect(download.suggestedFilename()).toBe(`custody-export-${exportId}.zip`);
      const bytes = fs.readFileSync(await download.path());
      expect(bytes.length).toBe(view.bytes);
      expect(sha256(bytes)).toBe(view.sha256);
    } catch (err) {
      await shot('exports-failure');
      throw err;
    }
  }, 120_000);
});
