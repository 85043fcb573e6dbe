import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMicrosoftSandbox, type MicrosoftSandbox } from '../../sandbox/microsoft/index.ts';
import { jsonOf, newCollection, startTestApp, type TestApp } from '../support/app.ts';
import { testDatabases } from '../support/databases.ts';
import { microsoftEnv } from '../support/sandbox-env.ts';

const CB = 'https://client.example/edrive-done';
const all = (name: string) => ({
  all_selected: true,
  selected: [],
  excluded: [],
  filter_type: 'user_folders',
  filter_name: name,
});

describe.each(testDatabases.map((d) => [d.name, d] as const))(
  'edrive sync_filters a new user gets wrong, on %s',
  (_name, database) => {
    let sandbox: MicrosoftSandbox;
    let t: TestApp;
    let token: string;
    let paired: string;
    let unpaired: string;
    const call = (method: string, path: string, body?: unknown) =>
      t.call(token, method, path, body === undefined ? {} : { json: body });
    const patch = (id: string, filters: unknown) => call('PATCH', `/v1/collections/${id}`, { sync_filters: filters });

    beforeAll(async () => {
      sandbox = await startMicrosoftSandbox({ seed: 5, users: 2, usersWithoutDrive: 0 });
      t = await startTestApp({
        database,
        env: microsoftEnv(sandbox),
      });
      token = await t.token('acme', [CB]);
      paired = await newCollection(t.call, token, 'edrive', 'Paired');
      unpaired = await newCollection(t.call, token, 'edrive', 'Not paired');
      const landed = await t.consent(token, { type: 'edrive', redirectTo: CB, state: 's1' });
      const code = landed.searchParams.get('code')!;
      expect(
        (await call('POST', `/v1/collections/${paired}/pair_credentials?auth_code=${encodeURIComponent(code)}`)).status,
      ).toBe(204);
    });

    afterAll(async () => {
      await t?.close();
      await sandbox?.close();
    });

    it('{} selects nothing: 422', async () => {
      const body = await jsonOf(await patch(paired, {}), 422);
      expect(body.detail).toMatch(/nothing is selected/);
      expect(body.detail).toMatch(/user ids from GET \/v1\/collections\/\{id\}\/users/);
    });

    it('conf filter keys are not user ids: 422 naming the key and where user ids come from', async () => {
      const body = await jsonOf(
        await patch(paired, {
          account_owners: { all_selected: true, selected: [], excluded: [] },
          content_selections: { all_selected: true, selected: [], excluded: [] },
        }),
        422,
      );
      expect(body.detail).toMatch(/"account_owners" is not a user id/);
      expect(body.detail).toMatch(/GET \/v1\/collections\/\{id\}\/users/);
    });

    it('a user id the paired tenant does not have: 422 naming it; a real one is accepted', async () => {
      const [alice] = sandbox.tenant.users.map((u) => u.id);
      const body = await jsonOf(await patch(paired, { [alice]: all('Alice'), 'no-such-user': all('Ghost') }), 422);
      expect(body.detail).toMatch(/user id "no-such-user" is not a user of the paired tenant/);
      expect((await patch(paired, { [alice]: all('Alice') })).status).toBe(204);
    });

    it("a folder id that is not in the user's drive: 422 pointing at the entry; a real folder is accepted", async () => {
      const [alice] = sandbox.tenant.users.map((u) => u.id);
      const folder = sandbox
        .listItems(alice)
        .find((i) => i.kind === 'folder' && i.parentId !== undefined && i.parentId !== null)!;
      const only = (ids: string[]) => ({
        [alice]: { ...all('Alice'), all_selected: false, selected: ids.map((id) => ({ id })) },
      });
      const body = await jsonOf(await patch(paired, only([folder.id, 'NOSUCHFOLDER'])), 422);
      expect(body.detail).toMatch(/folder id "NOSUCHFOLDER" is not in this user's drive/);
      expect(JSON.stringify(body)).toContain(`/sync_filters/${alice}/selected/1/id`);
      expect(JSON.stringify(body)).not.toContain(`/selected/0/id`);
      const excluded = await jsonOf(
        await patch(paired, { [alice]: { ...all('Alice'), excluded: [{ id: 'gone-folder' }] } }),
        422,
      );
      expect(excluded.detail).toMatch(/folder id "gone-folder"/);
      expect((await patch(paired, only([folder.id]))).status).toBe(204);
    });

    it('without a pairing the tenant cannot be asked: saved, and the run would report the unknown user', async () => {
      expect((await patch(unpaired, { 'no-such-user': all('Ghost') })).status).toBe(204);
    });
  },
);
