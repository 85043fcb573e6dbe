#!/usr/bin/env node
// npm puts node_modules/.bin before its own node-gyp on a dependency's install PATH, so better-sqlite3's
// `node-gyp rebuild` lands here: run npm's node-gyp unchanged and, when it fails, say how to fix it.
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const real = process.env.npm_config_node_gyp;
if (!real || path.resolve(real) === __filename) {
  process.stderr.write('custody: npm did not say where its node-gyp is (npm_config_node_gyp)\n');
  process.exit(1);
}
const res = spawnSync(process.execPath, [real, ...process.argv.slice(2)], { stdio: 'inherit' });
const code = res.status ?? 1;
if (code !== 0) {
  const headers = path.resolve(process.execPath, '..', '..');
  process.stderr.write(
    [
      '',
      'custody: building better-sqlite3 needs the Node.js headers, which node-gyp downloads unless told where they are.',
      'custody: offline or behind a proxy? Point it at the headers installed with Node and run the install again:',
      `custody:   npm_config_nodedir=${headers} npm ci`,
      `custody: (${headers}/include/node/node.h must exist; distribution packages put it under /usr, e.g. libnode-dev)`,
      '',
    ].join('\n'),
  );
}
process.exit(code);
