import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { currentIdentity, isDeadOwner, ownerString, pidNamespaceScope } from '../../../src/sync/execution/owner.ts';

describe('run owner identity', () => {
  it('names the boot and the PID namespace, and falls back to no scope without /proc', () => {
    const scope = pidNamespaceScope();
    expect(scope).toMatch(/^[0-9a-f-]{36}\.\d+$/);
    expect(pidNamespaceScope('/nonexistent-proc')).toBeNull();
    // A /proc that has the boot id but no namespace link (some sandboxes) is no better than none.
    const fake = fs.mkdtempSync(path.join(os.tmpdir(), 'proc-'));
    fs.mkdirSync(path.join(fake, 'sys/kernel/random'), { recursive: true });
    fs.writeFileSync(path.join(fake, 'sys/kernel/random/boot_id'), '994b5a50-1929-4a89-aca3-a9ee6976d9e4\n');
    expect(pidNamespaceScope(fake)).toBeNull();
    fs.rmSync(fake, { recursive: true, force: true });
  });

  it('takes the shortcut only for a gone process of this very namespace', () => {
    const self = currentIdentity();
    const me = ownerString(self);
    const exited = spawnSync(process.execPath, ['-e', '0']).pid;
    const inNamespace = (pid: number) => `${self.host}:${self.scope}:${pid}:aa`;
    expect(isDeadOwner(inNamespace(exited), self, me)).toBe(true);
    expect(isDeadOwner(inNamespace(process.ppid), self, me)).toBe(false);
    expect(isDeadOwner(me, self, me)).toBe(false);
    expect(isDeadOwner(`${self.host}:${self.scope}x:${exited}:aa`, self, me)).toBe(false);
    expect(isDeadOwner(`${self.host}:${exited}:aa`, self, me)).toBe(false);
    expect(isDeadOwner(null, self, me)).toBe(false);
    // Where /proc could not tell the namespace, nothing is ever presumed dead.
    const blind = { ...self, scope: null };
    expect(isDeadOwner(`${self.host}:-:${exited}:aa`, blind, ownerString(blind))).toBe(false);
  });
});
