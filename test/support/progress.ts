import type { EventData } from '../../src/domain/events.ts';

/** A `run.progress` event's data: zeros and no names unless given (tests that write events themselves). */
export function progressData(
  p: Pick<EventData['run.progress'], 'run_id' | 'custodian'> & Partial<EventData['run.progress']>,
): EventData['run.progress'] {
  return {
    custodian_name: null,
    custodian_email: null,
    status: 'running',
    listed: 0,
    collected: 0,
    unchanged: 0,
    excluded: 0,
    not_present: 0,
    failed: 0,
    skipped: 0,
    bytes: 0,
    ...p,
  };
}
