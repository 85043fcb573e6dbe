import type { Config } from '../config.ts';
import { createLogger } from '../log.ts';

/** `custody sandbox`: both simulators standalone, for pointing a separately run server at them. */
export async function sandbox(config: Config): Promise<number> {
  const log = createLogger(config.logLevel);
  const { startZoomSandbox } = await import('../../sandbox/zoom/index.ts');
  const { startMicrosoftSandbox } = await import('../../sandbox/microsoft/index.ts');
  const zoom = await startZoomSandbox({ port: 9100 });
  const ms = await startMicrosoftSandbox({ port: 9200 });
  process.stdout.write(
    [
      'Simulators running (nothing here talks to the real Zoom or Microsoft). Point the server at them with:',
      `  ZOOM_CLIENT_ID=${zoom.clientId} ZOOM_CLIENT_SECRET=${zoom.clientSecret} ZOOM_OAUTH_URL=${zoom.oauthUrl} ZOOM_API_URL=${zoom.apiUrl}`,
      `  MS_CLIENT_ID=${ms.clientId} MS_CLIENT_SECRET=${ms.clientSecret} MS_LOGIN_URL=${ms.loginUrl} MS_GRAPH_URL=${ms.graphUrl}`,
      '',
    ].join('\n'),
  );
  const stop = async () => {
    await zoom.close();
    await ms.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  void log;
  return -1;
}
