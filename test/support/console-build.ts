import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Builds the console (as `npm ci` / `npm start` do, from the sources under test) once per test run. The browser test
 * files run in parallel worker processes of one vitest process (their common parent), and two `vite build`s into the
 * same console/dist would empty each other's output: the first file to get here builds, the others wait for it.
 */
export function buildConsoleOnce(timeoutMs = 180_000): void {
  const dir = path.resolve('.tmp');
  fs.mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, `console-build-${process.ppid}.lock`);
  const done = path.join(dir, `console-build-${process.ppid}.done`);
  try {
    fs.mkdirSync(lock);
  } catch {
    const sleeper = new Int32Array(new SharedArrayBuffer(4));
    for (const until = Date.now() + timeoutMs; !fs.existsSync(done);) {
      if (Date.now() > until) throw new Error('the console build of another test file did not finish');
      Atomics.wait(sleeper, 0, 0, 200);
    }
    if (fs.readFileSync(done, 'utf8') !== 'ok') throw new Error('the console build failed in another test file');
    return;
  }
  try {
    execFileSync(process.execPath, [path.resolve('node_modules/vite/bin/vite.js'), 'build', 'console'], {
      stdio: 'pipe',
    });
    fs.writeFileSync(done, 'ok');
  } catch (err) {
    fs.writeFileSync(done, 'failed');
    throw err;
  }
}
