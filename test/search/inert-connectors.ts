import { Readable } from 'node:stream';
import type { CollectEvent, Connector, ContentSource } from '../../src/connectors/types.ts';
import { httpQuirks } from '../../src/provider/quirks.ts';

/**
 * Connectors that collect nothing: enough for the API to create and delete `conf` and `edrive` collections, so
 * the search, hold and audit tests can put items in place themselves (fixtures.ts) without a provider.
 */
function inert(type: 'conf' | 'edrive', kinds: string[]): Connector {
  return {
    type,
    configType: type,
    kinds,
    userAgent: 'custody-test',
    quirks: httpQuirks,
    limits: {
      budget: { ratePerSecond: 10, concurrency: 1 },
      retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, giveUpAfterMs: 1 },
    },
    oauth: {
      authorizationResponse: 'json',
      scopes: {},
      authorizationUrl: () => 'http://127.0.0.1/authorize',
      completeCallback: async () => ({}),
      refresh: async (grant) => grant,
    },
    validateFilters: () => [],
    discovery: {},
    async *collect() {},
  };
}

export const inertConnectors = (): Connector[] => [
  inert('conf', [
    'meeting',
    'recording_video',
    'recording_audio',
    'transcript',
    'meeting_chat',
    'ai_meeting_notes',
    'chat_message',
    'channel_message',
  ]),
  inert('edrive', ['file', 'folder']),
];

/**
 * A `conf` connector that yields, on each run, the events the test has put in `script.runs[n]` (the last list is
 * repeated). Content is served from memory.
 */
export function scriptedConf(script: { runs: CollectEvent[][]; count: number }): Connector {
  const base = inert('conf', ['meeting', 'transcript', 'chat_message']);
  return {
    ...base,
    async *collect() {
      const events = script.runs[Math.min(script.count, script.runs.length - 1)] ?? [];
      script.count += 1;
      yield* events;
    },
  };
}

export function memoryContent(data: string): ContentSource {
  return { open: async () => ({ body: Readable.from([Buffer.from(data)]), partial: false }) };
}
