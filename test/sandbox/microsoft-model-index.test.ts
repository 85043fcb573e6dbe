import { describe, expect, it } from 'vitest';
import { TenantModel } from '../../sandbox/microsoft/model.ts';
import type { MsDrive, MsTenant, MsUser } from '../../sandbox/microsoft/types.ts';

const user = (id: string, upn: string) => ({ id, userPrincipalName: upn }) as MsUser;
const drive = (id: string) => ({ id }) as MsDrive;

describe("the Graph simulator's user lookups", () => {
  it('find users by id, any-case principal name and drive, and follow changes made after the first lookup', () => {
    const tenant = { users: [user('u-1', 'Ada@contoso.test'), user('u-2', 'bob@contoso.test')] } as MsTenant;
    const model = new TenantModel(tenant, undefined as never);
    expect(model.user('U-1')?.id).toBe('u-1');
    expect(model.user('ada@CONTOSO.test')?.id).toBe('u-1');
    expect(model.driveById('d-2')).toBeUndefined();

    // a principal name changed (a guest's #EXT# name) and a drive provisioned, with no user added
    tenant.users[0].userPrincipalName = 'ada_contoso#EXT#@contoso.test';
    tenant.users[1].drive = drive('d-2');
    expect(model.user('ada@contoso.test')).toBeUndefined();
    expect(model.user('ADA_contoso#ext#@contoso.test')?.id).toBe('u-1');
    expect(model.driveById('d-2')?.user.id).toBe('u-2');
    // a user added
    tenant.users.push(user('u-3', 'cy@contoso.test'));
    expect(model.user('cy@contoso.test')?.id).toBe('u-3');
    expect(model.user('nobody@contoso.test')).toBeUndefined();
  });
});
