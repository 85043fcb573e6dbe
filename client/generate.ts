import fs from 'node:fs';
import openapiTS, { astToString } from 'openapi-typescript';

/**
 * Writes client/src/schema.ts, the types of every path and schema, from docs/openapi.json (`npm run openapi`);
 * with --check fails when the committed copy has drifted from the document (`npm run openapi:check`).
 */
const check = process.argv.includes('--check');
const source = new URL('../docs/openapi.json', import.meta.url);
const target = new URL('./src/schema.ts', import.meta.url);
const header = '// Generated from docs/openapi.json by openapi-typescript (`npm run openapi`). Do not edit.\n\n';
const text = header + astToString(await openapiTS(source, { alphabetize: true }));
if (check) {
  const committed = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
  if (committed !== text) {
    process.stderr.write(
      'client/src/schema.ts is out of date with docs/openapi.json: run `npm run openapi` and commit it.\n',
    );
    process.exit(1);
  }
  process.stdout.write('client/src/schema.ts matches docs/openapi.json.\n');
} else {
  fs.writeFileSync(target, text);
  process.stdout.write('wrote client/src/schema.ts\n');
}
