/**
 * The README's walk-through as a shell script. Its executed blocks are the fenced blocks whose info string is
 * `sh walk-through`, in order. A command line ending in `# → <output>` states what it prints: the script keeps that
 * line's standard output for the test to compare, where `…` in the stated output stands for any text.
 */
export interface WalkCheck {
  /** The README line, as written. */
  line: string;
  expected: string;
}

export interface Walk {
  script: string;
  checks: WalkCheck[];
}

const FENCE = /^```sh walk-through\s*$/;
const STATES = /^(.*\S)\s+# → (.+)$/;

export function readmeWalk(markdown: string): Walk {
  const checks: WalkCheck[] = [];
  const out: string[] = [];
  let inBlock = false;
  for (const line of markdown.split('\n')) {
    if (!inBlock) {
      inBlock = FENCE.test(line);
      continue;
    }
    if (line.startsWith('```')) {
      inBlock = false;
      continue;
    }
    const m = STATES.exec(line);
    if (!m) {
      out.push(line);
      continue;
    }
    out.push(`{ ${m[1]}\n} > "$WALK_OUT/${checks.length}"`);
    checks.push({ line, expected: m[2].trim() });
  }
  if (inBlock) throw new Error('a walk-through block is not closed');
  return { script: ['set -euo pipefail', ...out].join('\n') + '\n', checks };
}

/** Whether a command's output is what the README says it prints (`…` = any text, on one line or several). */
export function matchesStated(expected: string, actual: string): boolean {
  const pattern = expected
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*');
  return new RegExp(`^${pattern}$`).test(actual.trim());
}
