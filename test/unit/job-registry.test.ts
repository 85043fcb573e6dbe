import { describe, expect, it } from 'vitest';
import { checkHandlers, JobRegistryError } from '../../src/sync/jobs/registry.ts';

const noop = async () => undefined;

describe('job registry', () => {
  it('accepts one handler for each of custody.run, custody.unit, custody.schedule, custody.sweep and custody.export', () => {
    const handlers = checkHandlers([
      ['custody.sweep', noop],
      ['custody.unit', noop],
      ['custody.run', noop],
      ['custody.schedule', noop],
      ['custody.export', noop],
    ]);
    expect(Object.keys(handlers).sort()).toEqual([
      'custody.export',
      'custody.run',
      'custody.schedule',
      'custody.sweep',
      'custody.unit',
    ]);
  });

  it('fails at boot when a job has no handler', () => {
    expect(() =>
      checkHandlers([
        ['custody.run', noop],
        ['custody.unit', noop],
        ['custody.sweep', noop],
        ['custody.export', noop],
      ]),
    ).toThrow(new JobRegistryError('no handler for job "custody.schedule"'));
    expect(() =>
      checkHandlers([
        ['custody.run', noop],
        ['custody.schedule', noop],
        ['custody.sweep', noop],
        ['custody.export', noop],
      ]),
    ).toThrow(new JobRegistryError('no handler for job "custody.unit"'));
    expect(() =>
      checkHandlers([
        ['custody.run', noop],
        ['custody.schedule', noop],
        ['custody.sweep', noop],
        ['custody.unit', noop],
      ]),
    ).toThrow(new JobRegistryError('no handler for job "custody.export"'));
  });

  it('fails at boot when a job has two handlers', () => {
    expect(() =>
      checkHandlers([
        ['custody.run', noop],
        ['custody.schedule', noop],
        ['custody.run', noop],
        ['custody.sweep', noop],
      ]),
    ).toThrow(/job "custody.run" has two handlers/);
  });

  it('fails at boot on a handler for a job nobody registered', () => {
    expect(() =>
      checkHandlers([
        ['custody.run', noop],
        ['custody.schedule', noop],
        ['custody.sweep', noop],
        ['custody.runs', noop],
      ]),
    ).toThrow(/"custody.runs" is not a registered job/);
  });
});
