import { startZoomSandbox } from '../sandbox/zoom/index.ts';
import { pairWithSandbox } from '../sandbox/zoom/testing.ts';

// A Zoom simulator limiting the account to argv[2] requests/s in every category, in its own process so that its
// work does not delay the budget's timers in the process measured.
const limit = Number(process.argv[2] ?? 20);
const sb = await startZoomSandbox({
  users: 20,
  meetingsPerUser: 0,
  channels: 0,
  rateLimits: { light: limit, medium: limit, heavy: limit },
});
const { access_token: token } = await pairWithSandbox(sb);
process.stdout.write(`${JSON.stringify({ apiUrl: sb.apiUrl, token })}\n`);
process.on('SIGTERM', () => void sb.close().then(() => process.exit(0)));
