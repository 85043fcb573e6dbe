import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { jsonOf, type Json, type TestApp } from '../support/app.ts';
import {
  consolePage,
  launchConsoleBrowser,
  screenshot,
  SHOTS,
  signInToConsole,
  startConsoleApp,
} from '../support/console-browser.ts';
import { seedItem } from '../search/fixtures.ts';

/**
 * The console for real work (issue 23, item 3), in Chromium on the real server with the Zoom simulator (its variance
 * profile: a file that always fails, one that vanishes, meetings without summaries). The console is opened at
 * `localhost` while PUBLIC_URL says `127.0.0.1`. Screenshots: .ci/screenshots/work-*.png.
 */
describe('the console for real work, in Chromium', () => {
  let zoom: ZoomSandbox;
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let creds: { accountId: string; clientId: string; clientSecret: string };
  let token: string;
  let consoleUrl: string;
  const workspaces: Record<string, string> = {};
  let col: string;
  const api = async (method: string, path: string, json?: unknown, status = method === 'POST' ? 201 : 200) =>
    jsonOf(await t.call(token, method, path, json === undefined ? {} : { json }), status);
  const shot = (name: string) => screenshot(page, `work-${name}`);
  const onFailure = (name: string, fn: () => Promise<void>) => async () => {
    try {
      await fn();
    } catch (err) {
      await shot(`${name}-failure`);
      throw err;
    }
  };

  beforeAll(async () => {
    browser = await launchConsoleBrowser();
    // this file's screenshots only (work-*.png): the other browser tests write theirs next to them
    for (const f of fs.readdirSync(SHOTS)) if (f.startsWith('work-')) fs.rmSync(path.join(SHOTS, f), { force: true });
    zoom = await startZoomSandbox({
      seed: 11,
      users: 3,
      meetingsPerUser: 2,
      channels: 1,
      messagesPerChannel: 2,
      messagesPerChat: 2,
      variance: {},
    });
    t = await startConsoleApp({ zoom });
    // The other loopback name than PUBLIC_URL's.
    consoleUrl = `http://localhost:${new URL(t.url).port}/console/`;
    creds = await t.client('work-co');
    token = await t.token('work-co');
    for (const name of ['Matter A', 'Matter B'])
      workspaces[name] = (await api('POST', '/v1/workspaces', { name, description: '' })).onna_id as string;
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    page = await consolePage(context);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await zoom?.close();
  });

  const nav = (name: string) =>
    page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
  const tab = (name: string) =>
    page.getByRole('navigation', { name: 'Collection' }).getByRole('link', { name, exact: true }).click();

  it(
    'keeps the session over a reload',
    onFailure('reload', async () => {
      await signInToConsole(page, consoleUrl, creds);
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Workspaces' }).waitFor();
      expect(await page.getByLabel('Client ID').count()).toBe(0);
      // and the API still answers this tab: the workspaces list is there
      await page.getByRole('cell', { name: 'Matter B' }).waitFor();
    }),
    60_000,
  );

  it(
    'makes the user choose the workspace of a new collection',
    onFailure('workspace', async () => {
      await nav('Collections');
      const select = page.locator('select[name="collection_workspace"]');
      await expect.poll(() => select.locator('option', { hasText: 'Matter B' }).count()).toBe(1);
      await page.getByLabel('Name').fill('Vendor dispute meetings');
      await page.getByLabel('Source').selectOption({ label: 'Zoom (meetings, recordings, chats)' });
      // Nothing chosen: the list says so, and Create makes nothing.
      expect(
        await select.evaluate(
          (s: { options: ArrayLike<{ text: string }>; selectedIndex: number }) => s.options[s.selectedIndex]?.text,
        ),
      ).toBe('Choose a workspace…');
      await page.getByRole('button', { name: 'Create collection' }).click();
      expect(await select.evaluate((s: { validity: { valid: boolean } }) => s.validity.valid)).toBe(false);
      await shot('01-workspace-required');
      expect((await api('GET', '/v1/collections')).items).toHaveLength(0);
      // The second workspace, chosen: the collection goes there.
      await select.selectOption({ label: 'Matter B' });
      await page.getByRole('button', { name: 'Create collection' }).click();
      await page.getByRole('heading', { level: 1, name: 'Vendor dispute meetings' }).waitFor();
      const [created] = (await api('GET', '/v1/collections')).items as Json[];
      expect(created.onna_parent_id).toBe(workspaces['Matter B']);
      col = created.onna_id as string;
    }),
    60_000,
  );

  it(
    'connects with the console opened at localhost while PUBLIC_URL says 127.0.0.1',
    onFailure('consent', async () => {
      const [consent] = await Promise.all([
        page.waitForEvent('popup'),
        page.getByRole('button', { name: 'Connect Zoom' }).click(),
      ]);
      await consent.waitForEvent('close', { timeout: 20_000 });
      await page.getByText('Connected to Zoom.').waitFor();
      expect((await api('GET', `/v1/collections/${col}`)).credentials_paired).toBe(true);
    }),
    60_000,
  );

  let picked: string[] = [];
  it(
    'saves the filters on screen before it starts, and says so',
    onFailure('start', async () => {
      const custodians = page.locator('input[name="custodian"]');
      await custodians.nth(1).waitFor();
      picked = [(await custodians.nth(0).getAttribute('value'))!, (await custodians.nth(1).getAttribute('value'))!];
      await custodians.nth(0).check();
      await page.getByLabel('One-to-one chats').check();
      await page.getByRole('button', { name: 'Save filters' }).click();
      await page.getByText('Saved. Start the sync').waitFor();
      // A second custodian ticked, not saved: the "Saved." banner goes, Start says it will save first.
      await custodians.nth(1).check();
      await page.getByText('Not saved yet').waitFor();
      expect(await page.getByText('Saved. Start the sync').count()).toBe(0);
      await shot('02-unsaved');
      await page.getByRole('button', { name: 'Save and start sync' }).click();
      await page.getByText('Saved the choices that were on screen, then started the sync.').waitFor();
      const saved = await api('GET', `/v1/collections/${col}`);
      expect(saved.sync_filters.account_owners.selected).toEqual(picked.map((id) => ({ id })));
      await page.locator('.title-row .badge', { hasText: /^synced$/ }).waitFor({ timeout: 60_000 });
      const runs = await api('GET', `/v1/collections/${col}/runs`);
      expect(runs.runs).toHaveLength(1);
      // The run used both custodians: it reported on both.
      const report = await api('GET', `/v1/collections/${col}/runs/${runs.runs[0].run_id}/reconciliation`);
      const owners = (report.custodians as Json[]).filter((c) => c.unit_kind === 'custodian').map((c) => c.custodian);
      expect(owners.sort()).toEqual([...picked].sort());
      // The Progress tab: a custodian with failures has an amber bar, not a quiet full one; the others green.
      const failedOf: Record<string, number> = Object.fromEntries(
        (report.custodians as Json[]).map((c) => [c.custodian as string, c.failed as number]),
      );
      expect(Object.values(failedOf).some((n) => n > 0)).toBe(true);
      for (const id of picked) {
        const row = page.locator('tbody tr', { has: page.locator(`td[title="${id}"]`) });
        // cells: custodian, listed, collected, unchanged, excluded, not present, failed, bytes, done
        await expect.poll(() => row.locator('td').nth(6).innerText(), { timeout: 10_000 }).toBe(String(failedOf[id]));
        expect(await row.locator('progress').getAttribute('class')).toBe(
          failedOf[id] > 0 ? 'bar bar-partial' : 'bar bar-ok',
        );
      }
      await shot('02b-progress');
    }),
    90_000,
  );

  it(
    'shows the reconciliation as a report: per custodian, plain exceptions, CSV, print',
    onFailure('reconciliation', async () => {
      await tab('Run history');
      const runId = (await api('GET', `/v1/collections/${col}/runs`)).runs[0].run_id as string;
      const report = await api('GET', `/v1/collections/${col}/runs/${runId}/reconciliation`);
      await page.getByText('Reconciliation report').first().click();
      const section = page.getByRole('region', { name: `Reconciliation of run ${runId}` });
      await section.waitFor();
      // One row per custodian or channel, its six counts as the API gives them, and the totals.
      const table = section.locator('table.report-table');
      for (const c of report.custodians as Json[]) {
        const row = table.locator('tbody tr', { has: page.locator(`th[title="${c.custodian}"]`) });
        expect(await row.locator('td').allInnerTexts()).toEqual(
          [c.listed, c.collected, c.unchanged, c.excluded, c.not_present, c.failed].map(String),
        );
      }
      const t0 = report.totals as Json;
      expect(await table.locator('tfoot td').allInnerTexts()).toEqual(
        [t0.listed, t0.collected, t0.unchanged, t0.excluded, t0.not_present, t0.failed].map(String),
      );
      // The exceptions, in plain words: the failing file is there, and no address anywhere.
      const exceptions = (report.custodians as Json[]).flatMap((c) => c.exceptions as Json[]);
      expect(exceptions.length).toBeGreaterThan(0);
      const shown = section.locator('table.exceptions tbody tr');
      expect(await shown.count()).toBe(exceptions.length);
      const text = await section.innerText();
      expect(text).toContain('could not be collected');
      expect(text).not.toMatch(/https?:\/\//);
      await section.scrollIntoViewIfNeeded();
      await shot('03-reconciliation');

      // The CSV forms of the API, downloaded as they are served.
      for (const [button, rows] of [
        ['Download CSV (per custodian)', 'custodians'],
        ['Download CSV (exceptions)', 'exceptions'],
      ] as const) {
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          section.getByRole('button', { name: button }).click(),
        ]);
        const served = await (
          await t.call(token, 'GET', `/v1/collections/${col}/runs/${runId}/reconciliation?format=csv&rows=${rows}`)
        ).text();
        expect(download.suggestedFilename()).toBe(`reconciliation-${runId}-${rows}.csv`);
        expect(fs.readFileSync(await download.path(), 'utf8')).toBe(served);
      }

      // Printed: the report without the console's navigation and buttons.
      await page.emulateMedia({ media: 'print' });
      expect(await page.locator('header.top').isVisible()).toBe(false);
      expect(await section.getByRole('button', { name: 'Print' }).isVisible()).toBe(false);
      expect(await table.isVisible()).toBe(true);
      await shot('04-reconciliation-print');
      await page.emulateMedia({ media: 'screen' });
    }),
    60_000,
  );

  it(
    'previews in a dialog where the user is, and offers content actions only for items with content',
    onFailure('preview', async () => {
      await tab('Items');
      await page.locator('table tbody tr').first().waitFor();
      // An item without stored content (by the Item contract, a chat message may be its text alone): no Preview,
      // no Download. The simulator's run stores content for every item, so this one is written as the engine would.
      const bareId = await seedItem(t.runtime.ctx.db, creds.accountId, col, {
        kind: 'chat_message',
        name: 'Message without a file',
        text: 'see you at noon',
        custodian: picked[0],
      });
      const bare = await api('GET', `/v1/collections/${col}/items/${bareId}`);
      expect(bare.sha256).toBeNull();
      await page.getByLabel('Kind').selectOption(bare.kind as string);
      const bareRow = page.locator('table tbody tr', { hasText: bare.name as string });
      await bareRow.first().getByText('no content').waitFor();
      expect(await bareRow.first().getByRole('button').count()).toBe(0);
      await page.getByLabel('Kind').selectOption('transcript');
      const preview = page.getByRole('button', { name: /^Preview/ }).first();
      await preview.waitFor();
      await page.mouse.wheel(0, 400);
      await preview.click();
      const dialog = page.getByRole('dialog');
      await dialog.locator('pre').waitFor();
      // Open, modal, and inside the viewport the user is looking at.
      expect(
        await dialog.evaluate((d: { open: boolean; matches(q: string): boolean }) => d.open && d.matches(':modal')),
      ).toBe(true);
      const box = (await dialog.boundingBox())!;
      expect(box.y).toBeGreaterThanOrEqual(0);
      expect(box.y + box.height).toBeLessThanOrEqual(900);
      await page.screenshot({ path: path.join(SHOTS, 'work-05-preview.png') }); // the viewport: where the user is
      await dialog.getByRole('button', { name: 'Close' }).click();
      expect(await page.getByRole('dialog').count()).toBe(0);
    }),
    60_000,
  );

  it(
    'searches with filters, each hit once, snippets from the content and the custodian by name',
    onFailure('search', async () => {
      await nav('Search');
      // A transcript proper (WEBVTT), not a timeline or captions file of the same kind.
      const items = (await t.items(token, col)).filter((i) => i.kind === 'transcript');
      const target = items.find((i) => i.metadata.file_type === 'TRANSCRIPT')!;
      expect(target).toBeDefined();
      const who = target.custodian;
      const content = await (
        await t.call(token, 'GET', `/v1/collections/${col}/items/${target.onna_id}/content`)
      ).text();
      // A word spoken (a cue's text after the speaker), not a timing or the header.
      const cues = content
        .split('\n')
        .filter((l) => !l.includes('-->') && !/^(WEBVTT|\d+)?\s*$/.test(l))
        .join(' ');
      const spoken = cues
        .split(/(?<=[.?!]) /)
        .map((l) => l.split(':').slice(1).join(':') || l)
        .join(' ');
      const word = /\b[A-Za-z]{6,}\b/.exec(spoken)![0];
      await page.getByLabel('Query').fill(word);
      await page.getByLabel('Custodian (e-mail or id)').fill(who);
      await page.getByLabel('Kind').selectOption('transcript');
      await page.getByRole('button', { name: 'Search' }).click();
      const hits = page.locator('ol.results > li');
      await hits.first().waitFor();
      const ids = await hits.evaluateAll((els) => els.map((e) => e.getAttribute('data-item')!));
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toContain(target.onna_id);
      const ofWho = new Set(items.filter((i) => i.custodian === who).map((i) => i.onna_id));
      for (const id of ids) expect(ofWho.has(id), id).toBe(true);
      const hit = hits
        .filter({ has: page.locator(`[data-item="${target.onna_id}"]`) })
        .or(page.locator(`ol.results > li[data-item="${target.onna_id}"]`));
      // The custodian by name where the API gives one, else the id.
      const item = await api('GET', `/v1/collections/${col}/items/${target.onna_id}`);
      expect(await hit.locator('.result-head .muted').innerText()).toContain(
        (item.custodian_name as string | undefined) ?? item.custodian,
      );
      // Snippets are the spoken text, the word marked, never the same one twice.
      const snippets = await hit.locator('.snippet').allInnerTexts();
      expect(snippets.length).toBeGreaterThan(0);
      expect(new Set(snippets).size).toBe(snippets.length);
      expect(cues.replace(/\s+/g, ' ')).toContain(snippets[0].replace(/^…|…$/g, '').trim());
      expect(await hit.locator('.snippet mark').first().innerText()).toBe(word);
      await shot('06-search');
      // A date range that ends before anything was made: nothing.
      await page.getByLabel('To', { exact: true }).fill('2001-01-01');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByText('0 results for').waitFor();
    }),
    60_000,
  );

  it(
    'shows a failed run as a failure',
    onFailure('failed-run', async () => {
      zoom.revokeAll();
      expect((await t.call(token, 'POST', `/v1/collections/${col}/start`)).status).toBe(200);
      await t.waitForStatus(token, col, ['error', 'failed'], 60_000);
      await page.evaluate(`location.hash = ${JSON.stringify(`#/collections/${col}/progress`)}`);
      const alert = page.getByRole('alert').filter({ hasText: 'This run failed.' });
      await alert.waitFor();
      // Red, not the neutral blue of a notice.
      expect(
        await alert.evaluate(
          (e) =>
            (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(e)
              .backgroundColor,
        ),
      ).toBe('rgb(253, 236, 236)');
      await shot('07-failed-run');
    }),
    90_000,
  );

  it(
    'two tabs of one session renew their tokens without tripping refresh-token reuse detection',
    onFailure('two-tabs', async () => {
      // Their own browser context, its clock under the test's control: an hour passes in a moment.
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await ctx.clock.install();
      const a = await consolePage(ctx);
      await signInToConsole(a, consoleUrl, creds);
      // A second tab opened from the first (as a middle-click or "open in new tab" on a console link does).
      const [b] = await Promise.all([
        ctx.waitForEvent('page'),
        a.evaluate("void window.open(`${location.origin}${location.pathname}#/collections`, '_blank')"),
      ]);
      b.setDefaultTimeout(20_000);
      await b.getByRole('heading', { level: 1, name: 'Collections' }).waitFor();
      const audit = async (action: string) =>
        ((await api('GET', `/v1/audit?action=${action}&limit=200`)).items as Json[]).length;
      const refreshes = await audit('token.refresh');
      for (let round = 0; round < 2; round++) {
        // Past the access tokens' expiry as both tabs see it: each renews before its next call.
        await ctx.clock.fastForward('01:01:00');
        for (const [p, area, heading] of [
          [a, '#/holds', 'Legal holds'],
          [b, '#/workspaces', 'Workspaces'],
          [a, '#/workspaces', 'Workspaces'],
          [b, '#/holds', 'Legal holds'],
        ] as const) {
          await p.evaluate(`location.hash = ${JSON.stringify(area)}`);
          await p.getByRole('heading', { level: 1, name: heading }).waitFor();
          await p
            .getByRole('alert')
            .waitFor({ state: 'detached', timeout: 2000 })
            .catch(() => undefined);
          expect(await p.getByRole('alert').count(), `${area} round ${round}`).toBe(0);
        }
      }
      await a.getByRole('cell', { name: 'Matter B' }).waitFor();
      expect(await audit('token.refresh')).toBeGreaterThan(refreshes);
      // No token family was revoked for reuse.
      expect(await audit('token.revoke')).toBe(0);
      await ctx.close();
    }),
    90_000,
  );
});
