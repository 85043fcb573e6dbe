// The real `bin/custody` as a child process: what an operator runs, with nothing of the test wired in.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

export const BIN = path.resolve(import.meta.dirname, '../../bin/custody');
const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * What a child process inherits of the caller's environment: only what the operating system and Node need to
 * run it. Everything the service reads (DATABASE_URL, REDIS_URL, DATA_DIR, secrets…) comes from the test, never
 * from the developer's shell.
 */
const SYSTEM_VARS = ['PATH', 'HOME', 'TMPDIR', 'TMP', 'TEMP', 'LANG', 'LC_ALL', 'TZ', 'SYSTEMROOT'];

export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(
    SYSTEM_VARS.flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]]])),
  );
  return { ...base, ...env };
}

const handedOut = new Set<number>();

/**
 * Ports are handed out below the kernel's ephemeral range (32768+ on Linux), so no outgoing connection and no
 * `listen(0)` elsewhere can take one between this check and the child's bind. Each vitest worker gets its own
 * slice of 500, so two test files never pick the same port either.
 */
const SLICE = 500;
const sliceStart = 12_000 + (Number(process.env.VITEST_POOL_ID ?? process.pid) % 40) * SLICE;
let next = Math.floor(Math.random() * SLICE); // two vitest runs at once (one per worktree) start apart

async function bindable(port: number): Promise<boolean> {
  const server = net.createServer();
  const ok = await new Promise<boolean>((resolve) =>
    server.once('error', () => resolve(false)).listen(port, '127.0.0.1', () => resolve(true)),
  );
  if (ok) await new Promise<void>((resolve) => server.close(() => resolve()));
  return ok;
}

/** A port nobody listens on right now, never the same one twice in this process. */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < SLICE; tries++) {
    const port = sliceStart + (next++ % SLICE);
    if (handedOut.has(port) || !(await bindable(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error("no free port left in this worker's slice");
}

export type LogLine = Record<string, unknown> & { msg?: string; level?: number };

export interface CustodyProcess {
  name: string;
  child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** The JSON log lines (pino) so far. */
  logs(): LogLine[];
  /** Resolves with the first log line that matches; rejects on timeout or when the process exits first. */
  waitForLog(match: (line: LogLine) => boolean, timeoutMs: number): Promise<LogLine>;
  /** Resolves once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` and waits for the exit; SIGKILL when it does not exit within timeoutMs. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `node bin/custody <args>` (what `npm start` runs), so signals reach the service itself. */
export function spawnCustody(name: string, args: string[], env: Record<string, string>): CustodyProcess {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const lines: LogLine[] = [];
  const waiters = new Set<() => void>();
  let partial = '';
  const onData = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    out += text;
    partial += text;
    const complete = partial.split('\n');
    partial = complete.pop()!;
    for (const line of complete) {
      if (!line.startsWith('{')) continue;
      try {
        lines.push(JSON.parse(line) as LogLine);
      } catch {
        // not a log line
      }
    }
    for (const wake of waiters) wake();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  let done: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      done = { code, signal };
      for (const wake of waiters) wake();
      resolve(done);
    }),
  );

  const proc: CustodyProcess = {
    name,
    child,
    output: () => out,
    logs: () => lines,
    exited,
    waitForLog(match, timeoutMs) {
      return new Promise<LogLine>((resolve, reject) => {
        const check = () => {
          const found = lines.find(match);
          if (found) finish(() => resolve(found));
          else if (done)
            finish(() =>
              reject(new Error(`${name} exited (${done!.code ?? done!.signal}) first:\n${out.slice(-3000)}`)),
            );
        };
        const timer = setTimeout(
          () =>
            finish(() => reject(new Error(`${name}: no such log line after ${timeoutMs} ms:\n${out.slice(-3000)}`))),
          timeoutMs,
        );
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          settle();
        };
        waiters.add(check);
        check();
      });
    },
    async stop(signal = 'SIGTERM', timeoutMs = 15_000) {
      if (done) return done;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
  return proc;
}

export interface ServeProcess extends CustodyProcess {
  url: string;
}

/**
 * `bin/custody serve` on a free port (or `worker` when `worker` is set); resolves once it says it is listening
 * (or, for a worker, started). Rejects, after killing the child, if that does not happen within bootMs.
 */
export async function startCustody(
  name: string,
  env: Record<string, string>,
  opts: { worker?: boolean; port?: number; bootMs?: number } = {},
): Promise<ServeProcess> {
  const port = opts.port ?? (await freePort());
  const proc = spawnCustody(name, [opts.worker ? 'worker' : 'serve'], { PORT: String(port), ...env });
  const ready = opts.worker ? 'custody worker started' : 'custody is listening';
  try {
    await proc.waitForLog((l) => l.msg === ready, opts.bootMs ?? 45_000);
  } catch (err) {
    await proc.stop('SIGKILL');
    throw err;
  }
  return Object.assign(proc, { url: `http://127.0.0.1:${port}` });
}

/** Runs `bin/custody <args>` to its end (e.g. `admin create-client`). */
export async function runCustody(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** `bin/custody admin create-client`: the one JSON line it prints. */
export async function createClient(env: Record<string, string>, account: string, redirects: string[] = []) {
  const res = await runCustody(
    ['admin', 'create-client', '--account', account, ...redirects.flatMap((r) => ['--redirect-allow', r])],
    env,
  );
  if (res.code !== 0) throw new Error(`create-client exited ${res.code}: ${res.stderr}`);
  return JSON.parse(res.stdout.trim()) as { account_id: string; client_id: string; client_secret: string };
}
