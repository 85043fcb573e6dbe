import type { Logger } from 'pino';
import type { Config } from '../config.ts';

/**
 * A newcomer with no provider credentials gets the simulators: for each provider whose client id is not
 * configured, its sandbox runs in this process and the connector is pointed at it. Said loudly in the log.
 */
export async function startSandboxesIfUnconfigured(config: Config, log: Logger): Promise<() => Promise<void>> {
  const closers: Array<() => Promise<void>> = [];
  if (!config.zoom.clientId) {
    const { startZoomSandbox } = await import('../../sandbox/zoom/index.ts');
    const zoom = await startZoomSandbox({});
    Object.assign(config.zoom, {
      clientId: zoom.clientId,
      clientSecret: zoom.clientSecret,
      oauthUrl: zoom.oauthUrl,
      apiUrl: zoom.apiUrl,
    });
    closers.push(() => zoom.close());
    log.warn(
      { zoom_oauth_url: zoom.oauthUrl, zoom_api_url: zoom.apiUrl },
      'SANDBOX MODE: ZOOM_CLIENT_ID is not set, so conf collections talk to the built-in Zoom simulator, not to Zoom',
    );
  }
  if (!config.microsoft.clientId) {
    const { startMicrosoftSandbox } = await import('../../sandbox/microsoft/index.ts');
    const ms = await startMicrosoftSandbox({});
    Object.assign(config.microsoft, {
      clientId: ms.clientId,
      clientSecret: ms.clientSecret,
      loginUrl: ms.loginUrl,
      graphUrl: ms.graphUrl,
    });
    closers.push(() => ms.close());
    log.warn(
      { ms_login_url: ms.loginUrl, ms_graph_url: ms.graphUrl, tenant_id: ms.tenantId },
      'SANDBOX MODE: MS_CLIENT_ID is not set, so edrive collections talk to the built-in Microsoft simulator, not to Microsoft',
    );
  }
  return async () => {
    for (const close of closers) await close();
  };
}
