import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import autocannon from 'autocannon';
import { cpuMs } from './proc-cpu.ts';

interface Target {
  url: string;
  path: string;
  token: string;
}

/** Starts bench/api-server.ts in a child process and reads its `{url, path, token}` line. */
async function startServer(kind: 'product' | 'bare'): Promise<{ target: Target; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'api-server.ts'), kind], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
  return { target: JSON.parse(line) as Target, child };
}

async function load(target: Target, opts: { seconds: number; connections: number; rate?: number }) {
  const result = await autocannon({
    url: `${target.url}${target.path}`,
    headers: { authorization: `Bearer ${target.token}` },
    connections: opts.connections,
    duration: opts.seconds,
    ...(opts.rate && { overallRate: opts.rate }),
  });
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    failed: result.non2xx + result.errors + result.timeouts,
    total: result.requests.total,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Authenticated `GET /v1/collections/{id}` on the product (token check, shared-budget rate limit, audit and edge
 * hooks, request log at the default level, the collection read) against a bare Fastify answering the same JSON,
 * in one run: the throughput with 16 connections in flight, the server's CPU per request at that load (Linux), and
 * the p99 latency at a fixed 1,000 requests per second. Both servers run at once and are measured in alternation,
 * three rounds, medians reported, so that a machine whose load changes during the run skews both alike.
 */
export async function benchApi(seconds: number): Promise<Record<string, string>> {
  const servers = { bare: await startServer('bare'), product: await startServer('product') };
  const kinds = ['bare', 'product'] as const;
  const rps = { bare: [] as number[], product: [] as number[] };
  const p99 = { bare: [] as number[], product: [] as number[] };
  // server CPU per request under full load: steadier than req/s on a machine whose other load changes
  const cpu = { bare: [] as number[], product: [] as number[] };
  let failed = 0;
  try {
    for (const kind of kinds) await load(servers[kind].target, { seconds: 1, connections: 16 });
    for (let round = 0; round < 3; round++) {
      for (const kind of kinds) {
        const before = cpuMs(servers[kind].child.pid);
        const max = await load(servers[kind].target, { seconds, connections: 16 });
        const after = cpuMs(servers[kind].child.pid);
        if (before !== null && after !== null && max.total > 0) cpu[kind].push(((after - before) * 1000) / max.total);
        const paced = await load(servers[kind].target, { seconds, connections: 16, rate: 1000 });
        rps[kind].push(max.rps);
        p99[kind].push(paced.p99);
        failed += max.failed + paced.failed;
      }
    }
  } finally {
    for (const kind of kinds) servers[kind].child.kill('SIGTERM');
  }
  const out: Record<string, string> = {};
  for (const kind of kinds) {
    out[`api ${kind}: GET /v1/collections/{id}`] =
      `${median(rps[kind]).toFixed(0)} req/s with 16 in flight (rounds: ${rps[kind].map((r) => r.toFixed(0)).join(', ')}); p99 at 1000 req/s ${median(p99[kind])} ms (rounds: ${p99[kind].join(', ')})` +
      (cpu[kind].length
        ? `; server CPU ${median(cpu[kind]).toFixed(0)} µs/request (rounds: ${cpu[kind].map((c) => c.toFixed(0)).join(', ')})`
        : '');
  }
  out['api ratio product/bare'] =
    `${(median(rps.product) / median(rps.bare)).toFixed(2)} (goal >= 0.4); product p99 at 1000 req/s ${median(p99.product)} ms (goal <= 10); ${failed} non-2xx or failed requests`;
  return out;
}
