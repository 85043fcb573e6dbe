import { startS3 } from '../test/support/s3.ts';

// An S3-compatible server in its own process, so the blob store's memory is measured alone.
const s3 = await startS3();
process.stdout.write(`${JSON.stringify({ endpoint: s3.endpoint })}\n`);
process.on('SIGTERM', () => void s3.stop().then(() => process.exit(0)));
