import readline from 'node:readline';
import { startMicrosoftSandbox } from '../sandbox/microsoft/index.ts';

// The Graph simulator of `npm run bench -- scale-items` in its own process (its CPU and memory are not the
// service's): `users` custodians with `files` tiny files each. Prints its addresses as one JSON line; each line on
// stdin is answered with the requests it has served so far, by host.
const users = Number(process.argv[2] ?? 20);
const files = Number(process.argv[3] ?? 50);
// `text`: plain text files only (no document to extract text from); otherwise the sandbox's mix.
const extensions = process.argv[4] === 'text' ? ['txt', 'csv', 'json'] : undefined;
const sb = await startMicrosoftSandbox({
  users,
  usersWithoutDrive: 0,
  // one file each: that file in the drive's root and nothing else (10k custodians of one item for the re-run)
  folderDepth: files > 1 ? 1 : 0,
  foldersPerLevel: 1,
  filesPerFolder: files > 1 ? Math.round(files / 2) : 1,
  fileSize: 200,
  deltaPageSize: 200,
  extensions,
});
// Requests since the start, by host and by route (`graph GET /v1.0/users/:id/drive/root/delta`: ids are the segments
// holding a digit). The sandbox keeps only its latest 10,000 records, so they are counted as they come (the new ones
// are at the log's end), not read back when asked.
const by: Record<string, number> = {};
const counted = new WeakSet<object>();
const tally = () => {
  const log = sb.requests;
  let i = log.length;
  while (i > 0 && !counted.has(log[i - 1])) i--;
  for (; i < log.length; i++) {
    const r = log[i];
    counted.add(r);
    by[r.host] = (by[r.host] ?? 0) + 1;
    const route = `${r.host} ${r.method} ${r.path.replace(/\/(?!v1\.0\b)[^/]*\d[^/]*/g, '/:id')}`;
    by[route] = (by[route] ?? 0) + 1;
  }
};
setInterval(tally, 200).unref();
readline.createInterface({ input: process.stdin }).on('line', () => {
  tally();
  process.stdout.write(`${JSON.stringify(by)}\n`);
});
process.stdout.write(
  `${JSON.stringify({ loginUrl: sb.loginUrl, graphUrl: sb.graphUrl, clientId: sb.clientId, clientSecret: sb.clientSecret, userIds: sb.tenant.users.map((u) => u.id) })}\n`,
);
process.on('SIGTERM', () => void sb.close().then(() => process.exit(0)));
