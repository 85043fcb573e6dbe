// The Zoom simulator's Team Chat as a real account holds it (issue 20), checked against
// ../shared/reference/zoom-api.md Corrections Z4 (external contacts), Z5 (chat files) and Z6 (six months).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZoomSandbox, type ZoomSandbox } from '../../sandbox/zoom/index.ts';
import { apiGet, json, pairWithSandbox } from '../../sandbox/zoom/testing.ts';

const NOW = Date.parse('2025-03-15T12:00:00Z');
let sb: ZoomSandbox;
let token: string;

beforeAll(async () => {
  sb = await startZoomSandbox({
    seed: 5,
    users: 4,
    meetingsPerUser: 0,
    channels: 2,
    messagesPerChannel: 10,
    messagesPerChat: 8,
    chatExtras: true,
    now: () => new Date(NOW),
  });
  token = (await pairWithSandbox(sb)).access_token;
});
afterAll(async () => {
  await sb.close();
});

const get = async (path: string) => {
  const res = await apiGet(sb, token, path);
  return { status: res.status, body: await json(res) };
};
const recent = 'from=2024-09-20T00:00:00Z';

describe('zoom sandbox: Team Chat beyond the default tenant', () => {
  it('lists an external contact with peer_contact_member_id only, and to_contact takes that member id', async () => {
    const contact = sb.tenant.externalContacts[0];
    const conversation = sb.tenant.oneToOne.find((c) => c.userIds.includes(contact.member_id))!;
    const owner = conversation.userIds.find((id) => id !== contact.member_id)!;
    const sessions = await get(`/chat/users/${owner}/sessions?type=1:1&page_size=50`);
    const session = sessions.body.sessions.find((s: any) => s.peer_contact_member_id === contact.member_id);
    expect(session).toBeDefined();
    expect(session.peer_contact_user_id).toBe('');
    expect(session.peer_contact_email).toBeUndefined();
    const messages = await get(
      `/chat/users/${owner}/messages?to_contact=${encodeURIComponent(contact.member_id)}&${recent}&page_size=50`,
    );
    expect(messages.status).toBe(200);
    const within = conversation.messages.filter((m) => m.timestamp >= Date.parse('2024-09-20T00:00:00Z'));
    expect(messages.body.messages.map((m: any) => m.id).sort()).toEqual(within.map((m) => m.id).sort());
  });

  it('serves files on messages with a download_url that answers the bytes to the bearer token and an HTML page without it', async () => {
    // a channel that shows every member its whole history (a staged channel shows each member only what came after
    // they joined: test/sandbox covers that in routes-chat), with a file on a message within the six months
    const channel = sb.tenant.channels.find(
      (c) =>
        !c.joinedAt &&
        sb.tenant.channelMessages[c.id].some(
          (m) => m.files?.length && m.timestamp >= Date.parse('2024-09-20T00:00:00Z'),
        ),
    )!;
    const member = channel.memberIds[0];
    const { body } = await get(
      `/chat/users/${member}/messages?to_channel=${channel.id}&${recent}&page_size=50&include_deleted_and_edited_message=true`,
    );
    const withFiles = body.messages.filter((m: any) => m.files?.length);
    expect(withFiles.length).toBeGreaterThan(0);
    const file = withFiles[0].files[0];
    expect(Object.keys(file).sort()).toEqual(['download_url', 'file_id', 'file_name', 'file_size']);
    const bytes = Buffer.from(
      await (await fetch(file.download_url, { headers: { authorization: `Bearer ${token}` } })).arrayBuffer(),
    );
    expect(bytes.equals(sb.tenant.textBodies.get(file.file_id)!)).toBe(true);
    expect(bytes.length).toBe(file.file_size);
    const anonymous = await fetch(file.download_url);
    expect([anonymous.status, anonymous.headers.get('content-type')]).toEqual([
      200,
      expect.stringMatching(/text\/html/),
    ]);
  });

  it('holds history older than six months and refuses to serve it with 400 code 300', async () => {
    const old = sb.tenant.oneToOne.find(
      (c) =>
        c.messages.some((m) => m.timestamp < Date.parse('2024-09-15T12:00:00Z')) &&
        c.userIds.every((id) => sb.tenant.findUser(id)),
    )!;
    expect(old).toBeDefined();
    const [a, b] = old.userIds;
    const res = await get(`/chat/users/${a}/messages?to_contact=${b}&from=2024-03-01T00:00:00Z`);
    expect([res.status, res.body]).toEqual([
      400,
      { code: 300, message: 'Only provide past chat messages in recent 6 months.' },
    ]);
  });

  it('leaves the default tenant without any of it', async () => {
    const plain = await startZoomSandbox({
      seed: 5,
      users: 4,
      meetingsPerUser: 0,
      channels: 2,
      messagesPerChannel: 10,
      messagesPerChat: 8,
      now: () => new Date(NOW),
    });
    try {
      expect(plain.tenant.externalContacts).toEqual([]);
      const all = [
        ...plain.tenant.oneToOne.flatMap((c) => c.messages),
        ...Object.values(plain.tenant.channelMessages).flat(),
      ];
      expect(all.some((m) => m.files)).toBe(false);
      expect(all.every((m) => m.timestamp >= Date.parse('2024-09-15T12:00:00Z'))).toBe(true);
    } finally {
      await plain.close();
    }
  });
});
