import type { Connector } from './types.ts';

/** Connectors by collection type. Adding a source = adding it to the list handed to createRegistry. */
export interface ConnectorRegistry {
  get(type: string): Connector | undefined;
  types(): string[];
}

export function createRegistry(connectors: Connector[]): ConnectorRegistry {
  const byType = new Map<string, Connector>();
  for (const c of connectors) {
    if (byType.has(c.type)) throw new Error(`two connectors registered for type ${c.type}`);
    byType.set(c.type, c);
  }
  return { get: (type) => byType.get(type), types: () => [...byType.keys()] };
}
