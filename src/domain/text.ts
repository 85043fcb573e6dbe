/**
 * Text the stores cannot keep faithfully: NUL (PostgreSQL refuses it in text and in JSON), or a lone UTF-16
 * surrogate (it has no UTF-8 form: it would be stored as U+FFFD, i.e. altered). In `u` mode a paired surrogate is
 * one code point and does not match.
 */
const UNSTORABLE = /[\u0000\uD800-\uDFFF]/u;

export function storable(text: string): boolean {
  return !UNSTORABLE.test(text);
}

/** Problems listed in full; past this many the rest are counted. */
export const SHOWN_PROBLEMS = 5;

/** One problem: itself; more: all of them counted, the first SHOWN_PROBLEMS written out. */
export function listProblems(problems: string[]): string {
  const unique = [...new Set(problems.map((p) => p.replace(/\.+$/, '')))];
  if (unique.length === 1) return `${unique[0]}.`;
  const shown = unique.slice(0, SHOWN_PROBLEMS).join('; ');
  const rest = unique.length - SHOWN_PROBLEMS;
  return `${unique.length} problems: ${shown}${rest > 0 ? `; and ${rest} more` : ''}.`;
}
