import { bytesOf, type FakeSource } from './fake-connector.ts';

export const CRASH_ITEMS = 30;
export const crashBytes = (i: number) => bytesOf(`crash-${i}`, 192 * 1024 + i);

/** 30 files of ~192 KiB, two per unit (a checkpoint every two items), identical in every process. */
export function crashSource(): FakeSource {
  const units = [];
  for (let i = 0; i < CRASH_ITEMS; i += 2) {
    units.push({
      items: [i, i + 1].map((n) => ({ kind: 'file', sourceId: `f${n}`, content: crashBytes(n), version: 'v1' })),
    });
  }
  return { units };
}
