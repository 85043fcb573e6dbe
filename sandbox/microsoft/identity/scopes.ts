import { GRAPH_APP_ID, GRAPH_RESOURCE } from '../state.ts';

export const OIDC_SCOPES = new Set(['openid', 'profile', 'email', 'offline_access']);
/** The delegated permissions configured on the sandbox app registration (what `.default` expands to). */
export const CONFIGURED_DELEGATED = ['User.Read', 'Files.Read.All', 'User.Read.All'];

export interface ParsedScopes {
  oidc: string[];
  graph: string[];
  /** Resources other than Graph named in the scope list. */
  otherResources: string[];
}

export function parseScopes(raw: string | undefined): ParsedScopes {
  const out: ParsedScopes = { oidc: [], graph: [], otherResources: [] };
  for (const scope of (raw ?? '').split(/\s+/).filter(Boolean)) {
    if (OIDC_SCOPES.has(scope.toLowerCase())) {
      out.oidc.push(scope.toLowerCase());
      continue;
    }
    const slash = scope.lastIndexOf('/');
    if (slash === -1) {
      out.graph.push(scope);
      continue;
    }
    const resource = scope.slice(0, slash).replace(/\/$/, '').toLowerCase();
    const name = scope.slice(slash + 1);
    if (resource === GRAPH_RESOURCE || resource === GRAPH_APP_ID) out.graph.push(name);
    else if (!out.otherResources.includes(resource)) out.otherResources.push(resource);
  }
  return out;
}

export function expandDelegated(graphScopes: string[]): string[] {
  const names = graphScopes.flatMap((s) => (s === '.default' ? CONFIGURED_DELEGATED : [s]));
  return [...new Set(names)];
}
