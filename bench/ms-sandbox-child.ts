import readline from 'node:readline';
import { startMicrosoftSandbox } from '../sandbox/microsoft/index.ts';

// A Microsoft simulator in its own process holding one big file, so the service's memory is measured alone.
// With `later` as the second argument the big file is added only when a line arrives on stdin ("added" answers it),
// so that a first sync can warm the service up without it.
const bigMb = Number(process.argv[2] ?? 256);
const sb = await startMicrosoftSandbox({
  users: 1,
  usersWithoutDrive: 0,
  folderDepth: 1,
  foldersPerLevel: 1,
  filesPerFolder: 1,
  fileSize: 1024,
});
const user = sb.tenant.users[0];
const root = sb.listItems(user.id).find((i) => i.parentId === null)!;
const addBig = () => {
  const big = Buffer.alloc(bigMb * 1024 * 1024);
  for (let i = 0; i < big.length; i += 4096) big.writeUInt32LE((i * 2654435761) >>> 0, i);
  sb.mutate.addFile(user.id, root.id, 'big-evidence.bin', big);
};
if (process.argv[3] === 'later') {
  readline.createInterface({ input: process.stdin }).once('line', () => {
    addBig();
    process.stdout.write('added\n');
  });
} else {
  addBig();
}
process.stdout.write(
  `${JSON.stringify({ loginUrl: sb.loginUrl, graphUrl: sb.graphUrl, clientId: sb.clientId, clientSecret: sb.clientSecret, userId: user.id })}\n`,
);
process.on('SIGTERM', () => void sb.close().then(() => process.exit(0)));
