import { startZoomSandbox } from './index.ts';

// Standalone: `npx tsx sandbox/zoom/main.ts [port]` — prints the URLs and the OAuth app it accepts.
const port = Number(process.argv[2] ?? process.env.ZOOM_SANDBOX_PORT ?? 0);
const sandbox = await startZoomSandbox({ port });
const owner = sandbox.tenant.owner;
process.stdout.write(
  [
    'Zoom sandbox (simulated Zoom; nothing here talks to the real Zoom)',
    `  ZOOM_OAUTH_URL=${sandbox.oauthUrl}`,
    `  ZOOM_API_URL=${sandbox.apiUrl}`,
    `  download origin: ${sandbox.downloadOrigin}`,
    `  ZOOM_CLIENT_ID=${sandbox.clientId}`,
    '  ZOOM_CLIENT_SECRET: the sandbox default (see sandbox/zoom/index.ts)',
    `  account owner: ${owner.display_name} <${owner.email}>, ${sandbox.tenant.users.length} users, ${sandbox.tenant.meetings.length} recorded meetings`,
    '  authorize: GET /oauth/authorize?response_type=code&client_id=…&redirect_uri=… (add sandbox_deny=1 to decline)',
    '',
  ].join('\n'),
);

const stop = (): void => {
  void sandbox.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
