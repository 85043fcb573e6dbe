import readline from 'node:readline';
import { startMicrosoftSandbox } from '../sandbox/microsoft/index.ts';
import { startZoomSandbox } from '../sandbox/zoom/index.ts';

// The allowance bench's provider in its own process (argv[2]: `zoom` or `ms`, argv[3]: the sandbox's options as
// JSON), so that answering the run's requests does not take the event loop of the service measured: a provider
// across the internet. One JSON line with the URLs and credentials, then one answer per line on stdin: `mark`
// starts counting (and sampling the requests in flight every 20 ms), `stats` answers what was counted since.
const kind = process.argv[2];
const options = JSON.parse(process.argv[3] ?? '{}') as Record<string, unknown>;
const out = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

if (kind === 'zoom') {
  const zoom = await startZoomSandbox(options);
  let from = 0;
  let refused = 0;
  let flight = { sum: 0, n: 0, peak: 0 };
  /** When 429s were answered (to 20 ms), one entry per refusal. */
  let refusedAt: number[] = [];
  let seen = zoom.rateLimited();
  const timer = setInterval(() => {
    for (; seen < zoom.rateLimited(); seen++) refusedAt.push(Date.now());
    flight.sum += zoom.inFlight.current;
    flight.n += 1;
    flight.peak = Math.max(flight.peak, zoom.inFlight.current);
  }, 20);
  out({ clientId: zoom.clientId, clientSecret: zoom.clientSecret, oauthUrl: zoom.oauthUrl, apiUrl: zoom.apiUrl });
  readline.createInterface({ input: process.stdin }).on('line', (line) => {
    if (line === 'mark') {
      from = zoom.requests.length;
      refused = zoom.rateLimited();
      flight = { sum: 0, n: 0, peak: 0 };
      refusedAt = [];
      out({});
    } else {
      const api = zoom.requests.slice(from).filter((r) => r.listener === 'main' && r.path.startsWith('/v2/'));
      const routes: Record<string, number> = {};
      for (const r of api) {
        const route = r.path
          .split('?')[0]
          .split('/')
          .map((seg, i) => (i > 2 && /\d|=|%/.test(seg) ? ':id' : seg))
          .join('/');
        routes[route] = (routes[route] ?? 0) + 1;
      }
      out({
        routes,
        apiAt: api.map((r) => r.at),
        refused: zoom.rateLimited() - refused,
        refusedAt,
        inFlightMean: flight.n ? flight.sum / flight.n : 0,
        inFlightPeak: flight.peak,
        ...(process.env.ALLOWANCE_LOG && { log: api.map((r) => [r.at, r.path]) }),
      });
    }
  });
  process.on('SIGTERM', () => {
    clearInterval(timer);
    void zoom.close().then(() => process.exit(0));
  });
} else {
  const ms = await startMicrosoftSandbox(options);
  let from = 0;
  let before = ms.resourceUnits();
  out({
    clientId: ms.clientId,
    clientSecret: ms.clientSecret,
    loginUrl: ms.loginUrl,
    graphUrl: ms.graphUrl,
    userIds: ms.tenant.users.map((u) => u.id),
  });
  readline.createInterface({ input: process.stdin }).on('line', (line) => {
    if (line === 'mark') {
      from = ms.requests.length;
      before = ms.resourceUnits();
      out({});
    } else {
      const now = ms.resourceUnits();
      out({
        units: now.charged - before.charged,
        refused: now.refused - before.refused,
        requests: ms.requests.length - from,
      });
    }
  });
  process.on('SIGTERM', () => void ms.close().then(() => process.exit(0)));
}
