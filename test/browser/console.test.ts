import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  consolePage,
  fillSignIn,
  launchConsoleBrowser,
  screenshot,
  SHOTS,
  startConsoleApp,
} from '../support/console-browser.ts';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { jsonOf, parseCsv, type TestApp } from '../support/app.ts';

/**
 * The whole job in a real browser, on the real server with the Zoom and Microsoft simulators: sign in, create a
 * conf and an edrive collection, connect each, pick two custodians (and one folder), start, watch the run reach
 * synced, search, download the manifest, place and release a legal hold. A screenshot of each screen goes to
 * .ci/screenshots/.
 */
describe('the web console in Chromium', () => {
  let zoom: ZoomSandbox;
  let ms: MicrosoftSandbox;
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let creds: { clientId: string; clientSecret: string; accountId: string };
  let token: string;
  const shot = (name: string) => screenshot(page, name);

  beforeAll(async () => {
    browser = await launchConsoleBrowser();
    // this test's screenshots only (NN-*.png, failure.png): the other browser tests write theirs next to them, maybe at the same time
    for (const f of fs.readdirSync(SHOTS))
      if (/^(\d\d-|failure\.png)/.test(f)) fs.rmSync(path.join(SHOTS, f), { recursive: true, force: true });
    zoom = await startZoomSandbox({
      seed: 7,
      users: 4,
      meetingsPerUser: 2,
      channels: 2,
      messagesPerChannel: 3,
      messagesPerChat: 2,
    });
    ms = await startMicrosoftSandbox({
      seed: 7,
      users: 4,
      usersWithoutDrive: 1,
      folderDepth: 2,
      foldersPerLevel: 2,
      filesPerFolder: 2,
      fileSize: 2000,
    });
    t = await startConsoleApp({ zoom, ms });
    creds = await t.client('browser-co');
    token = await t.token('browser-co');
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    page = await consolePage(context);
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await zoom?.close();
    await ms?.close();
  });

  /** Connect in the consent window the console opens; it comes back, hands the code over and closes. */
  async function connect(button: string, provider: string) {
    const [consent] = await Promise.all([
      page.waitForEvent('popup'),
      page.getByRole('button', { name: button }).click(),
    ]);
    await consent.waitForEvent('close', { timeout: 20_000 });
    await expect.poll(() => page.getByText(`Connected to ${provider}.`).count(), { timeout: 20_000 }).toBe(1);
  }

  const nav = (name: string) =>
    page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();

  async function waitSynced() {
    await page.locator('.title-row .badge', { hasText: /^synced$/ }).waitFor({ timeout: 60_000 });
  }

  async function createCollection(name: string, source: string) {
    await nav('Collections');
    // the form re-renders once the workspaces have loaded: fill it after that, or the name is wiped
    await expect
      .poll(() => page.locator('select').first().locator('option').count(), { timeout: 20_000 })
      .toBeGreaterThan(0);
    await page.getByLabel('Name').fill(name);
    await page.locator('select[name="collection_workspace"]').selectOption({ label: 'Matter 2026-17' });
    await page.getByLabel('Source').selectOption({ label: source });
    await page.getByRole('button', { name: 'Create collection' }).click();
    await page.getByRole('heading', { level: 1, name }).waitFor();
  }

  it('does the whole job: sign in, connect, pick, sync, search, manifest, hold', async () => {
    try {
      await wholeJob();
    } catch (err) {
      await shot('failure');
      throw err;
    }
  });

  async function wholeJob() {
    // Sign in (/ sends the browser to the console).
    await page.goto(`${t.url}/`);
    expect(new URL(page.url()).pathname).toBe('/console/');
    await fillSignIn(page, creds.clientId, 'not the secret');
    await page.getByRole('alert').waitFor();
    // The API's own words, not a generic failure.
    const refused = await jsonOf(
      await t.call(null, 'POST', '/v1/oauth/token', {
        form: { grant_type: 'client_credentials', client_id: creds.clientId, client_secret: 'not the secret' },
      }),
      401,
    );
    expect(await page.getByRole('alert').innerText()).toContain(refused.error_description);
    await shot('01-sign-in-error');
    await fillSignIn(page, creds.clientId, creds.clientSecret);

    // Workspaces.
    await page.getByRole('heading', { level: 1, name: 'Workspaces' }).waitFor();
    await page.getByLabel('Name').fill('Matter 2026-17');
    await page.getByLabel('Description').fill('Vendor dispute');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByRole('cell', { name: 'Matter 2026-17' }).waitFor();
    await shot('02-workspaces');

    // A Zoom collection: create (wallet on the fly), connect, two custodians, save, start, synced.
    await createCollection('Zoom meetings', 'Zoom (meetings, recordings, chats)');
    await shot('03-collection-created');
    await connect('Connect Zoom', 'Zoom');
    const custodians = page.locator('input[name="custodian"]');
    await custodians.nth(1).waitFor();
    await custodians.nth(0).check();
    await custodians.nth(1).check();
    await page.getByLabel('One-to-one chats').check();
    const zoomIds = [await custodians.nth(0).getAttribute('value'), await custodians.nth(1).getAttribute('value')];
    // the preview re-renders after each click: read it once it shows the last one
    await expect.poll(() => page.locator('pre.json').innerText(), { timeout: 10_000 }).toContain('one-to-one');
    const preview = JSON.parse(await page.locator('pre.json').innerText());
    expect(preview.sync_filters.account_owners).toEqual({
      all_selected: false,
      selected: zoomIds.map((id) => ({ id })),
      excluded: [],
    });
    await shot('04-conf-filters');
    await page.getByRole('button', { name: 'Save filters' }).click();
    await page.getByText('Saved.').waitFor();
    const confId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]);
    const saved = await jsonOf(await t.call(token, 'GET', `/v1/collections/${confId}`), 200);
    expect(saved.sync_filters).toEqual(preview.sync_filters);
    await page.getByRole('button', { name: 'Start sync' }).click();
    await waitSynced();
    // Per-custodian progress, as the engine reported it over the event stream: the two picked custodians only.
    // Each row names its custodian as Zoom does (display name), with the id in its title.
    for (const id of zoomIds) {
      const row = page.locator('tr', { has: page.locator(`td[title="${id}"]`) });
      await row.waitFor();
      const user = zoom.tenant.users.find((u) => u.id === id)!;
      expect(await row.locator(`td[title="${id}"]`).innerText()).toBe(user.display_name);
      const cells = await row.getByRole('cell').allInnerTexts();
      expect(Number(cells[2])).toBeGreaterThan(0); // collected
      // listed, then the reconciliation's five outcomes: they add up to listed, and the finished unit's bar is full
      const [listed, ...outcomes] = cells.slice(1, 7).map(Number);
      expect(outcomes.reduce((a, b) => a + b, 0)).toBe(listed);
      const bar = row.locator('progress');
      expect([await bar.getAttribute('value'), await bar.getAttribute('max')]).toEqual([
        String(listed),
        String(listed),
      ]);
    }
    await shot('05-conf-progress');
    await page.getByRole('link', { name: 'Run history' }).click();
    await page.locator('td .badge', { hasText: 'succeeded' }).first().waitFor();
    await shot('06-runs');
    await page.getByRole('link', { name: 'Items', exact: true }).click();
    await page
      .getByRole('button', { name: /^Preview/ })
      .first()
      .waitFor();
    const custodianOfItems = new Set(
      (await t.items(token, confId))
        .map((i) => i.custodian)
        .filter((c): c is string => c !== null && !zoomIds.includes(c)),
    );
    expect(custodianOfItems.size).toBe(0); // only the two picked custodians were collected
    await page.getByLabel('Kind').selectOption('transcript');
    await page
      .getByRole('button', { name: /^Preview/ })
      .first()
      .click();
    await page.locator('.preview pre').waitFor();
    // The preview is the start of the first transcript's stored content, as the API serves it.
    const first = (
      await jsonOf(await t.call(token, 'GET', `/v1/collections/${confId}/items?kind=transcript&limit=1`), 200)
    ).items[0];
    const stored = await (
      await t.call(token, 'GET', `/v1/collections/${confId}/items/${first.onna_id}/content`)
    ).text();
    expect(stored.length).toBeGreaterThan(0);
    expect(await page.locator('.preview pre').textContent()).toBe(stored.slice(0, 4096));
    await shot('07-items-preview');
    // The preview is a modal dialog: closed, the page is usable again.
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    // A chat message shows its sender and its text (issue 20).
    await page.getByLabel('Kind').selectOption('chat_message');
    const message = (
      await jsonOf(await t.call(token, 'GET', `/v1/collections/${confId}/items?kind=chat_message&limit=1`), 200)
    ).items[0];
    const line = page.locator('.chat-line').first();
    await line.waitFor();
    expect(await line.textContent()).toContain(
      `${message.metadata.sender_display_name ?? message.metadata.sender}: ${message.metadata.message}`,
    );

    // The manifest, downloaded through the console.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download manifest (CSV)' }).click(),
    ]);
    const [header, ...rows] = parseCsv(fs.readFileSync(await download.path(), 'utf8'));
    const col = (name: string) => header.indexOf(name);
    const itemIds = rows.filter((r) => r[col('record_type')] === 'item').map((r) => r[col('onna_id')]);
    expect(rows.filter((r) => r[col('record_type')] === 'summary')).toHaveLength(1);
    expect(itemIds.sort()).toEqual((await t.items(token, confId)).map((i) => i.onna_id).sort());

    // A OneDrive collection: two custodians, one of them limited to one folder from the lazily loaded tree.
    await createCollection('Drives', 'OneDrive for Business');
    const driveId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]);
    await connect('Connect Microsoft 365', 'Microsoft 365');
    await custodians.nth(1).waitFor();
    await custodians.nth(0).check();
    await custodians.nth(1).check();
    const [alice, bob] = [await custodians.nth(0).getAttribute('value'), await custodians.nth(1).getAttribute('value')];
    const tree = page.locator('details.tree-user').first();
    await tree.locator('summary').click();
    await tree.getByLabel('All folders').uncheck();
    const folder = tree.locator('input[name="folder"]').first();
    await folder.check();
    const folderId = await folder.getAttribute('value');
    await tree
      .getByRole('button', { name: /^Expand/ })
      .first()
      .click();
    await tree.locator('.tree .tree').first().waitFor();
    await shot('08-edrive-folders');
    const drivePreview = JSON.parse(await page.locator('pre.json').innerText());
    expect(drivePreview.sync_filters).toEqual({
      [alice!]: {
        all_selected: false,
        selected: [{ id: folderId }],
        excluded: [],
        filter_type: 'user_folders',
        filter_name: 'User drive',
      },
      [bob!]: {
        all_selected: true,
        selected: [],
        excluded: [],
        filter_type: 'user_folders',
        filter_name: 'User drive',
      },
    });
    await page.getByRole('button', { name: 'Save filters' }).click();
    await page.getByText('Saved.').waitFor();
    await page.getByRole('button', { name: 'Start sync' }).click();
    await waitSynced();
    await shot('09-edrive-progress');

    // Search with highlighted snippets.
    await nav('Search');
    await page.getByLabel('Query').fill('quarterly OR migration OR roadmap OR vendor OR legal OR budget');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('.snippet mark').first().waitFor();
    await shot('10-search');

    // Legal hold: place on both collections, see it listed, release it.
    await nav('Legal holds');
    await page.getByLabel('Name').fill('Preserve 2026-17');
    await page.getByLabel(/^Zoom meetings/).check();
    await page.getByLabel(/^Drives/).check();
    await page.getByRole('button', { name: 'Place hold' }).click();
    await page
      .getByRole('cell', { name: /Preserve 2026-17/ })
      .first()
      .waitFor();
    const held = await jsonOf(await t.call(token, 'GET', '/v1/legalhold/holds'), 200);
    expect(held.items).toHaveLength(1);
    expect([...held.items[0].collection_ids].sort()).toEqual([confId, driveId].sort());
    await shot('11-holds');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: /^Release/ }).click();
    await page.getByText('No active hold.').waitFor();
    expect((await jsonOf(await t.call(token, 'GET', '/v1/legalhold/holds?status=active'), 200)).items).toHaveLength(0);

    // The audit log shows what was done.
    await nav('Audit log');
    await page.getByRole('cell', { name: 'legalhold.release' }).first().waitFor();
    await shot('12-audit');
  }
});
