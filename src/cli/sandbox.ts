import { CliError } from './errors.ts';

export interface SandboxOptions {
  zoomPort: number;
  msPort: number;
}

/** `custody sandbox`: both simulators standalone, for pointing a separately run server at them. Keeps running. */
export async function sandbox(opts: SandboxOptions): Promise<void> {
  const { startZoomSandbox } = await import('../../sandbox/zoom/index.ts');
  const { startMicrosoftSandbox } = await import('../../sandbox/microsoft/index.ts');
  const zoom = await listening('Zoom', '--zoom-port', opts.zoomPort, () => startZoomSandbox({ port: opts.zoomPort }));
  const ms = await listening('Microsoft', '--ms-port', opts.msPort, () =>
    startMicrosoftSandbox({ port: opts.msPort }),
  ).catch(async (err) => {
    await zoom.close();
    throw err;
  });
  process.stdout.write(
    [
      `Zoom simulator on port ${new URL(zoom.oauthUrl).port}, Microsoft simulator on port ${new URL(ms.loginUrl).port}.`,
      'Simulators running (nothing here talks to the real Zoom or Microsoft). Point the server at them with:',
      `  ZOOM_CLIENT_ID=${zoom.clientId} ZOOM_CLIENT_SECRET=${zoom.clientSecret} ZOOM_OAUTH_URL=${zoom.oauthUrl} ZOOM_API_URL=${zoom.apiUrl}`,
      `  MS_CLIENT_ID=${ms.clientId} MS_CLIENT_SECRET=${ms.clientSecret} MS_LOGIN_URL=${ms.loginUrl} MS_GRAPH_URL=${ms.graphUrl}`,
      'Provider events: Graph subscriptions are created by the server (PUBLIC_URL must reach it). For Zoom webhooks:',
      `  curl -X POST ${zoom.oauthUrl}/sandbox/webhooks -H 'content-type: application/json' -d '{"url":"$PUBLIC_URL/v1/webhooks/zoom","secret_token":"$ZOOM_WEBHOOK_SECRET_TOKEN"}'`,
      `  then POST ${zoom.oauthUrl}/sandbox/recordings {"host":"<user id or email>"} or /sandbox/chat_messages {"from":"…","to":"…","text":"…"}`,
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
}

async function listening<T>(name: string, flag: string, port: number, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new CliError(
        `port ${port} for the ${name} simulator is taken: pick another with ${flag} <port> (0 = any free port)`,
      );
    if (code === 'EACCES')
      throw new CliError(
        `no permission to listen on port ${port} for the ${name} simulator: pick another with ${flag} <port> (0 = any free port)`,
      );
    throw err;
  }
}
