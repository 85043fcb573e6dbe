import readline from 'node:readline';
import { startZoomSandbox } from '../sandbox/zoom/index.ts';

// The Zoom simulator of `npm run bench -- small-items` with BENCH_SOURCE=chat, in its own process (its CPU is not the
// service's): argv[2] users, argv[3] channels of argv[4] messages each, no meetings, rate limits that do not bind.
// Prints its addresses as one JSON line; each line on stdin is answered with the API requests it has served so far.
const users = Number(process.argv[2] ?? 20);
const channels = Number(process.argv[3] ?? 20);
const messagesPerChannel = Number(process.argv[4] ?? 100);
const unbound = 1_000_000;
const sb = await startZoomSandbox({
  users,
  meetingsPerUser: 0,
  channels,
  messagesPerChannel,
  messagesPerChat: 0,
  rateLimits: { light: unbound, medium: unbound, heavy: unbound },
});
readline.createInterface({ input: process.stdin }).on('line', () => {
  process.stdout.write(`${JSON.stringify({ api: sb.requests.length })}\n`);
});
process.stdout.write(
  `${JSON.stringify({ clientId: sb.clientId, clientSecret: sb.clientSecret, oauthUrl: sb.oauthUrl, apiUrl: sb.apiUrl })}\n`,
);
process.on('SIGTERM', () => void sb.close().then(() => process.exit(0)));
