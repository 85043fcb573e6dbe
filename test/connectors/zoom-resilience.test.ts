import { afterEach, describe, expect, it } from 'vitest';
import { ZoomScopeError } from '../../src/connectors/zoom/api.ts';
import { createZoomConnector } from '../../src/connectors/zoom/index.ts';
import { ProviderError } from '../../src/provider/provider-error.ts';
import { startZoomSandbox, type ZoomSandboxOptions, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import {
  ALL_CHATS,
  LOOKBACK_DAYS,
  expectedItems,
  shaMatcher,
  filters,
  keyOf,
  MiniEngine,
  pair,
  readAll,
  sandboxFileSourceId,
  sel,
  session,
  sha256,
  testConnector,
  virtualClock,
} from './zoom-harness.ts';
import { ContentRejectedError, GrantRevokedError, NeedsUserActionError } from '../../src/domain/run-failures.ts';

const sandboxes: ZoomSandbox[] = [];
afterEach(async () => {
  await Promise.all(sandboxes.splice(0).map((s) => s.close()));
});

async function setup(opts: ZoomSandboxOptions = {}) {
  const sandbox = await startZoomSandbox({ seed: 11, users: 4, meetingsPerUser: 3, channels: 2, ...opts });
  sandboxes.push(sandbox);
  const connector = testConnector(sandbox);
  const grant = await pair(connector);
  return { sandbox, connector, grant };
}

const everything = () => filters({ account_owners: sel({ all: true }), chats: ALL_CHATS });

function expectExact(sandbox: ZoomSandbox, engine: MiniEngine, f = everything()) {
  const expected = expectedItems(sandbox, f);
  expect([...engine.stored.keys()].sort()).toEqual([...expected.items.keys()].sort());
  for (const [key, sha] of expected.items)
    if (sha) expect(engine.stored.get(key)!.sha256, key).toEqual(shaMatcher(sha));
}

/** The first recording file the connector offers, with its content source. */
async function firstFile(connector: ReturnType<typeof testConnector>, ctx: ReturnType<typeof session>['ctx']) {
  for await (const ev of connector.collect({
    ...ctx,
    collectionId: 'c',
    filters: everything(),
    checkpoint: null,
    cursors: null,
  })) {
    if (ev.type === 'item' && ev.item.kind === 'recording_video' && ev.content)
      return { item: ev.item, content: ev.content };
  }
  throw new Error('no video offered');
}

describe('zoom connector against a hostile Zoom', () => {
  it('keeps working across many access-token expiries, spending each rotated refresh token once', async () => {
    const t0 = Date.now();
    // Sandbox time advances 100 ms with every request it answers (not with the wall clock, so the machine's load
    // changes nothing): its 2-second tokens die every twenty requests, about thirty times in the test. Not faster: a
    // request retried with a just-refreshed token may wait for its budget slot while the requests already in flight
    // and queued ahead of it are answered, and at every eight requests that wait alone aged the new token past its
    // life (the connector then rightly reports a freshly refreshed token refused: a scope problem).
    let answered = () => 0;
    let idle = 0;
    const { sandbox, connector, grant } = await setup({
      accessTokenTtlSeconds: 2,
      now: () => new Date(t0 + answered() * 100 + idle),
      users: 5,
      meetingsPerUser: 4,
    });
    answered = () => sandbox.requests.length;
    const s = session(connector, grant);
    const first = new MiniEngine(connector, s.ctx);
    await first.run(everything());
    // Idle past the token's life, then a second collection with the same credential.
    idle += 3000;
    const second = new MiniEngine(connector, s.ctx);
    await second.run(everything());
    expectExact(sandbox, first);
    expectExact(sandbox, second);
    expect(s.grants.length).toBeGreaterThanOrEqual(4);
    const refreshTokens = s.grants.map((g) => g.refresh_token);
    expect(new Set(refreshTokens).size).toBe(refreshTokens.length);
    for (const g of s.grants.slice(1)) expect(Date.parse(g.expires_at!)).toBeGreaterThan(t0);
    // Every refresh token but the newest was spent: Zoom refuses it now.
    await expect(connector.oauth.refresh(s.grants[0])).rejects.toBeInstanceOf(GrantRevokedError);
    await expect(connector.oauth.refresh(s.grants[s.grants.length - 2])).rejects.toBeInstanceOf(GrantRevokedError);
    const fresh = await connector.oauth.refresh(s.grants[s.grants.length - 1]);
    expect(fresh.refresh_token).not.toBe(s.grants[s.grants.length - 1].refresh_token);
  });

  it("the default budget keeps a run under Zoom's Business+ per-second limits (no 429 at all)", async () => {
    const sandbox = await startZoomSandbox({
      seed: 12,
      users: 4,
      meetingsPerUser: 4,
      channels: 3,
      rateLimits: { light: 80, medium: 60, heavy: 40 },
    });
    sandboxes.push(sandbox);
    const connector = createZoomConnector({
      clientId: sandbox.clientId,
      clientSecret: sandbox.clientSecret,
      oauthUrl: sandbox.oauthUrl,
      apiUrl: sandbox.apiUrl,
      lookbackDays: LOOKBACK_DAYS,
    });
    const s = session(connector, await pair(connector));
    const engine = new MiniEngine(connector, s.ctx);
    const started = Date.now();
    await engine.run(everything());
    const apiCalls = sandbox.requests.filter((r) => r.path.startsWith('/v2/')).length;
    expect(apiCalls).toBeGreaterThan(60);
    expect(s.warnings.filter((w) => /429/.test(w))).toEqual([]);
    // Paced by the budget (48/s), not by refusals.
    expect(Date.now() - started).toBeGreaterThan(((apiCalls - 10) / 48) * 1000 * 0.9);
    expectExact(sandbox, engine);
  });

  it('rides out a 429 storm, waiting as long as Retry-After asks', async () => {
    const { sandbox, connector, grant } = await setup();
    const clock = virtualClock();
    const s = session(connector, grant, { clock });
    sandbox.faults.rate429Storm = 5;
    const engine = new MiniEngine(connector, s.ctx);
    await engine.run(everything());
    expect(sandbox.faults.rate429Storm).toBe(0);
    expectExact(sandbox, engine);
    // Retry-After: 1 (second) on every 429.
    expect(clock.waits.filter((ms) => ms >= 1000).length).toBeGreaterThanOrEqual(5);
    expect(s.warnings.filter((w) => /429/.test(w)).length).toBe(5);
  });

  it('retries 500s, 503 gateway pages and connection resets', async () => {
    const { sandbox, connector, grant } = await setup();
    const s = session(connector, grant, { clock: virtualClock() });
    sandbox.faults.serverErrors = 3;
    sandbox.faults.resetConnections = 2;
    const engine = new MiniEngine(connector, s.ctx);
    await engine.run(everything());
    expect(sandbox.faults.serverErrors + sandbox.faults.resetConnections).toBe(0);
    expectExact(sandbox, engine);
  });

  it('a daily-limit 429 (Retry-After as a date-time) fails the run with a retryable error instead of waiting until midnight', async () => {
    // Noon UTC for Zoom and for Custody alike: midnight is hours away whenever the suite runs (at 23:55 it would be
    // within the retry window, and waiting would be right).
    const today = new Date();
    const clock = virtualClock(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate(), 12));
    const { sandbox, connector, grant } = await setup({ now: () => new Date(clock.now()) });
    // A daily limit holds for the rest of the day: the run's first requests, asked for together (the owners of both
    // statuses and the account's summaries), all answer it.
    sandbox.faults.dailyLimit429 = 3;
    const engine = new MiniEngine(connector, session(connector, grant, { clock }).ctx);
    const err = await engine.run(everything()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).retryable).toBe(true);
    expect((err as ProviderError).message).toMatch(/Retry-After asks to wait/);
  });

  it('a revoked grant ends the run with GrantRevokedError', async () => {
    const { sandbox, connector, grant } = await setup();
    sandbox.revokeAll();
    await expect(connector.oauth.refresh(grant)).rejects.toBeInstanceOf(GrantRevokedError);
    const engine = new MiniEngine(connector, session(connector, grant).ctx);
    await expect(engine.run(everything())).rejects.toBeInstanceOf(GrantRevokedError);
  });

  it("detects Zoom's 200 HTML failure page instead of storing it", async () => {
    const { sandbox, connector, grant } = await setup();
    const { content, item } = await firstFile(connector, session(connector, grant).ctx);
    sandbox.faults.htmlDownloadFailure = 1;
    await expect(content.open(0, new AbortController().signal)).rejects.toBeInstanceOf(ContentRejectedError);
    expect(
      content.rejectIf!(Buffer.from('\n<!DOCTYPE html><html><body>Only the host can download</body></html>')),
    ).toMatch(/HTML/);
    expect(content.rejectIf!(Buffer.from('WEBVTT\n\n1\n'))).toBeNull();
    const fileId = sandbox.tenant.meetings.flatMap((m) => m.recording_files).find((f) => f.id === item.sourceId)!.id;
    expect(sha256(await readAll(content))).toBe(sha256(sandbox.contentOf(fileId)));
  });

  it('resumes a truncated download with a Range request; never sends the Zoom token to the file host', async () => {
    const { sandbox, connector, grant } = await setup({ fileSize: 300_000 });
    const { content, item } = await firstFile(connector, session(connector, grant).ctx);
    sandbox.faults.truncateDownloads = 1;
    const bytes = await readAll(content);
    expect(sha256(bytes)).toBe(sha256(sandbox.contentOf(item.sourceId)));
    const fileHits = sandbox.requests.filter((r) => r.listener === 'files');
    expect(fileHits.length).toBeGreaterThanOrEqual(2);
    expect(fileHits.every((r) => r.auth === undefined)).toBe(true);
    const downloads = sandbox.requests.filter((r) => r.path.startsWith('/rec/download/'));
    expect(downloads.every((r) => r.auth?.startsWith('Bearer '))).toBe(true);
  });

  it.each([
    ['400 code 4711', false],
    ['401 code 124', true],
  ])('a missing scope (%s) stops the run with a ZoomScopeError that asks for a new pairing', async (_label, as401) => {
    const { sandbox, connector, grant } = await setup();
    sandbox.faults.missingScopes = ['team_chat:read:list_user_messages:admin'];
    sandbox.faults.scopeErrorAs401 = as401;
    const engine = new MiniEngine(connector, session(connector, grant).ctx);
    const err = await engine.run(everything()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ZoomScopeError);
    // The grant still works: a person must add the scope (and pair again), but nothing was revoked.
    expect(err).toBeInstanceOf(NeedsUserActionError);
    expect(err).not.toBeInstanceOf(GrantRevokedError);
    expect((err as Error).message).toMatch(/listing chat messages/);
    if (!as401) expect((err as Error).message).toMatch(/team_chat:read:list_user_messages:admin/);
  });

  it('a user deleted during the run is reported; the others are collected; that user keeps no cursor', async () => {
    const { sandbox, connector, grant } = await setup();
    const engine = new MiniEngine(connector, session(connector, grant).ctx);
    let victim: string | undefined;
    const result = await engine.run(everything(), {
      onEvent: (ev) => {
        if (!victim && ev.type === 'item' && ev.item.kind === 'meeting') {
          victim = ev.item.custodian!;
          sandbox.deleteUser(victim);
        }
      },
    });
    // The meeting's files were offered before the deletion: their downloads fail (404) like the owner's listing.
    const [ownerError, ...moreErrors] = result.errors.filter((e) => !e.reason.startsWith('content download failed'));
    expect(moreErrors).toEqual([]);
    expect(ownerError).toMatchObject({ sourceId: victim });
    expect(ownerError.reason).toMatch(/deleted during the run/);
    const cursors = result.cursors as { owners: Record<string, number> };
    expect(Object.keys(cursors.owners)).not.toContain(victim);
    const others = expectedItems(sandbox, everything());
    for (const key of others.items.keys()) {
      if (
        !key.startsWith('meeting|') ||
        sandbox.tenant.meetings.find((m) => keyOf('meeting', m.uuid) === key)?.host_id === victim
      )
        continue;
      expect(engine.stored.has(key), key).toBe(true);
    }
  });

  it("a 4xx about one owner's data is recorded; their other data and everyone else's is collected", async () => {
    const { sandbox, connector, grant } = await setup();
    const s = session(connector, grant);
    const victim = sandbox.tenant.users[1];
    // Zoom refuses that user's recordings (e.g. cloud recording disabled for them); nothing else fails.
    const real = s.ctx.http;
    const http = Object.create(real) as typeof real;
    http.json = (url: string, opts?: object) =>
      url.includes(`/users/${encodeURIComponent(victim.id)}/recordings`)
        ? Promise.reject(
            new ProviderError(
              'GET /v2/users/x/recordings failed: HTTP 400 (provider said: Cloud recording is not enabled)',
              { code: 'http_error', retryable: false, status: 400, providerCode: 3312 },
            ),
          )
        : real.json(url, opts);
    const engine = new MiniEngine(connector, { ...s.ctx, http });
    const result = await engine.run(everything());
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ sourceId: victim.id });
    expect(result.errors[0].reason).toMatch(/recordings of Zoom user .* failed: .*Cloud recording is not enabled/);
    const expected = expectedItems(sandbox, everything());
    const lost = new Set<string>();
    for (const m of sandbox.tenant.meetingsOf(victim.id)) {
      lost.add(keyOf('meeting', m.uuid)).add(keyOf('ai_meeting_notes', m.uuid));
      for (const f of m.recording_files)
        for (const kind of ['recording_video', 'recording_audio', 'transcript', 'meeting_chat'])
          lost.add(keyOf(kind, sandboxFileSourceId(m, f)));
    }
    expect(sandbox.tenant.meetingsOf(victim.id).length).toBeGreaterThan(0);
    expect([...engine.stored.keys()].sort()).toEqual([...expected.items.keys()].filter((k) => !lost.has(k)).sort());
    // The victim's chats were still collected.
    expect(
      [...engine.stored.values()].some(
        (v) => v.input.kind === 'chat_message' && v.input.metadata.sender === victim.email,
      ),
    ).toBe(true);
    expect(Object.keys((result.cursors as { owners: object }).owners)).not.toContain(victim.id);
  });
});
