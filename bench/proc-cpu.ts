import fs from 'node:fs';

/** CPU time (user + system, ms) the process has used, from /proc (Linux; clock ticks of 10 ms); null elsewhere. */
export function cpuMs(pid: number | undefined): number | null {
  return statCpuMs(`/proc/${pid}/stat`);
}

/** CPU time (ms) of this process's main thread alone (its JavaScript), as cpuMs. */
export function mainThreadCpuMs(): number | null {
  return statCpuMs(`/proc/${process.pid}/task/${process.pid}/stat`);
}

function statCpuMs(file: string): number | null {
  try {
    const fields = fs.readFileSync(file, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/**
 * CPU time (ms) of every live process whose command line contains `needle` (e.g. the PostgreSQL backends of one
 * database: `postgres: … custody_bench_x …`), by pid, so that two samples can be subtracted. Linux only: empty elsewhere.
 */
export function cpuMsMatching(needle: string): Map<number, number> {
  const out = new Map<number, number>();
  let pids: string[];
  try {
    pids = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return out;
  }
  for (const p of pids) {
    try {
      if (!fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(needle)) continue;
    } catch {
      continue;
    }
    const ms = cpuMs(Number(p));
    if (ms !== null) out.set(Number(p), ms);
  }
  return out;
}

/** The CPU used between two samples of cpuMsMatching (processes that started in between count from zero). */
export function cpuMsBetween(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}
