import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';

/**
 * Who holds a run's lease: `<host>:<scope>:<pid>:<nonce>`. `scope` names the PID namespace the pid belongs to:
 * the kernel's boot id and the namespace's inode (`<boot_id>.<inode>`), or `-` where /proc cannot tell. A
 * hostname alone is not enough: containers sharing the host's name (host networking) have PID namespaces of
 * their own, where the same pid is another process, or none.
 */
export interface ProcessIdentity {
  host: string;
  /** null where /proc is missing: the dead-owner shortcut is then off and only lease expiry frees a run */
  scope: string | null;
  pid: number;
}

export function currentIdentity(): ProcessIdentity {
  return { host: os.hostname(), scope: pidNamespaceScope(), pid: process.pid };
}

/** `<boot_id>.<pid namespace inode>`, or null when either cannot be read. */
export function pidNamespaceScope(procRoot = '/proc'): string | null {
  try {
    const bootId = fs.readFileSync(`${procRoot}/sys/kernel/random/boot_id`, 'utf8').trim();
    const inode = /\[(\d+)\]/.exec(fs.readlinkSync(`${procRoot}/self/ns/pid`))?.[1];
    if (!/^[0-9a-f-]{8,64}$/i.test(bootId) || !inode) return null;
    return `${bootId}.${inode}`;
  } catch {
    return null;
  }
}

export function ownerString(id: ProcessIdentity): string {
  return `${id.host}:${id.scope ?? '-'}:${id.pid}:${crypto.randomBytes(4).toString('hex')}`;
}

/** The prefix every owner in this PID namespace starts with; undefined when the scope is unknown. */
export function samePidNamespacePrefix(id: ProcessIdentity): string | undefined {
  return id.scope ? `${id.host}:${id.scope}:` : undefined;
}

/**
 * Whether `leaseOwner` is a process of this very PID namespace (same host name, same boot, same namespace)
 * that no longer exists: its runs can be resumed without waiting for the lease to expire. Anything else
 * (another namespace, another boot, an owner written before scopes existed, an unknown scope) is treated as
 * alive: the lease decides.
 */
export function isDeadOwner(leaseOwner: string | null, self: ProcessIdentity, selfOwner: string): boolean {
  if (!leaseOwner || leaseOwner === selfOwner) return false;
  const prefix = samePidNamespacePrefix(self);
  if (!prefix || !leaseOwner.startsWith(prefix)) return false;
  const rest = leaseOwner.slice(prefix.length).split(':');
  if (rest.length !== 2) return false;
  const pid = Number(rest[0]);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  // Another engine in this very process (tests): alive as far as we can tell.
  if (pid === self.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
