import type { ApiItem } from '../support/app.ts';
import { key, type Expected } from './oracle.ts';

/**
 * Differences between what a sync collected and what the oracle says it must: missing and unexpected items by
 * kind and source id, and items held for a custodian the oracle does not allow. Empty when they agree.
 */
export function differences(want: Map<string, Expected>, got: ApiItem[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const item of got) {
    const k = key(item.kind, item.source_id);
    if (seen.has(k)) problems.push(`collected twice: ${k}`);
    seen.add(k);
    const expected = want.get(k);
    if (!expected) problems.push(`not allowed by the filters: ${k} (custodian ${item.custodian})`);
    else if (!expected.custodians.includes(item.custodian))
      problems.push(`${k} held for ${item.custodian}, allowed for ${expected.custodians.join(', ')}`);
  }
  for (const k of want.keys()) if (!seen.has(k)) problems.push(`missing: ${k}`);
  return problems;
}

/** Throws (so fast-check records a counterexample) when the collected set is not the oracle's. */
export function assertSameSet(want: Map<string, Expected>, got: ApiItem[], context: unknown): void {
  const problems = differences(want, got);
  if (problems.length) {
    throw new Error(
      `${problems.length} difference(s) with the oracle:\n  ${problems.slice(0, 12).join('\n  ')}\nfilters: ${JSON.stringify(context)}`,
    );
  }
}
