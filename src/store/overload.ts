/**
 * The database refused or could not take one more connection (PostgreSQL 53300 too_many_connections, 57P03
 * cannot_connect_now, the pool's connect timeout; SQLite busy): the service is overloaded, not broken. The API
 * answers 503 with Retry-After; a run or a unit is tried again from its checkpoint (triedAgainAfterOverload).
 */
export function databaseOverloaded(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return (
    code === '53300' ||
    code === '57P03' ||
    code === 'SQLITE_BUSY' ||
    /timeout exceeded when trying to connect/i.test(typeof message === 'string' ? message : '')
  );
}

/**
 * PostgreSQL aborted the transaction to break a deadlock (40P01) or a serialization conflict (40001): nothing of it
 * was written, and the same work run again succeeds once the other transaction has ended.
 */
export function transactionConflict(err: unknown): boolean {
  const { code } = (err ?? {}) as { code?: unknown };
  return code === '40P01' || code === '40001';
}
