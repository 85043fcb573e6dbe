// Zoom's six-month Team Chat window (Correction Z6): `GET /chat/users/{userId}/messages` answers 400 code 300
// "Only provide past chat messages in recent 6 months." for a `from` further back. That is a limit of the
// provider, not a failure: windows are clamped to it, and each run reports it once per unit whose history it
// cut (outcome `provider_limit`), never retried.
import type { CollectEvent } from '../types.ts';
import type { ZoomRun } from './run.ts';
import { DAY_MS, isoSeconds } from './windows.ts';

/**
 * How far back messages are asked for. Six calendar months are never shorter than 181 days; 180 leaves a day for
 * the run's own duration (the window is fixed at the run's start, Zoom measures from the moment it answers).
 */
export const CHAT_REACH_DAYS = 180;

/** The earliest instant (whole second) a message request of this run may start at. */
export function chatFloor(run: Pick<ZoomRun, 'state'>): number {
  return Math.ceil((run.state.startedAt - CHAT_REACH_DAYS * DAY_MS) / 1000) * 1000;
}

/** The `provider_limit` of a unit whose chat history this run would have reached before the window. */
export function* chatLimitEvent(
  run: Pick<ZoomRun, 'state'>,
  unit: string,
  who: string,
  since: number,
): Generator<CollectEvent> {
  const floor = chatFloor(run);
  if (since >= floor) return;
  yield {
    type: 'provider_limit',
    custodian: unit,
    kind: 'chat_history',
    sourceId: unit,
    name: `${who}: Team Chat before ${isoSeconds(floor)}`,
    reason:
      `Zoom serves Team Chat messages of the last 6 months only ("Only provide past chat messages in recent 6 months."): ` +
      `messages of ${who} from ${isoSeconds(since)} to ${isoSeconds(floor)} cannot be listed through the API`,
  };
}
