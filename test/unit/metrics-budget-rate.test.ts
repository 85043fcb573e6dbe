import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics.ts';

describe('custody_provider_budget_rate', () => {
  it('reports each stored credential rate with the provider and credential labels, and survives a store error', async () => {
    let answer: () => Promise<{ provider: string; credential: string; rate: number }[]> = async () => [
      { provider: 'conf', credential: 'wallet-a', rate: 19 },
      { provider: 'edrive', credential: 'wallet-b', rate: 20.5 },
    ];
    const errors: unknown[] = [];
    const metrics = createMetrics({
      typeOf: async () => undefined,
      runStates: async () => ({ queued: 0, running: 0 }),
      budgetRates: () => answer(),
      onError: (err) => errors.push(err),
    });
    const gauge = (text: string) => text.split('\n').filter((l) => l.startsWith('custody_provider_budget_rate{'));
    expect(gauge(await metrics.render())).toEqual([
      'custody_provider_budget_rate{provider="zoom",credential="wallet-a"} 19',
      'custody_provider_budget_rate{provider="microsoft",credential="wallet-b"} 20.5',
    ]);
    answer = async () => {
      throw new Error('database unreachable');
    };
    const text = await metrics.render();
    expect(gauge(text)).toHaveLength(2);
    expect(text).toMatch(/^custody_runs\{state="queued"\} 0$/m);
    expect(errors).toHaveLength(1);
  });
});
