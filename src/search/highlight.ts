import { fold } from './tokens.ts';

export interface HighlightTerm {
  words: string[];
  prefix: boolean;
}

interface Run {
  start: number;
  end: number;
  /** the folded words of this run of letters and digits (usually one) */
  words: string[];
}

const RUN = /[\p{L}\p{N}\p{M}]+/gu;
const WORD = /[\p{L}\p{N}]+/gu;
const SNIPPET = { maxSnippets: 3, context: 60, maxScan: 500_000 };

function runsOf(text: string): Run[] {
  const out: Run[] = [];
  for (const m of text.slice(0, SNIPPET.maxScan).matchAll(RUN)) {
    const ws = [...fold(m[0]).matchAll(WORD)].map((x) => x[0]);
    if (ws.length) out.push({ start: m.index, end: m.index + m[0].length, words: ws });
  }
  return out;
}

function wordMatches(run: Run, word: string, prefix: boolean): boolean {
  return run.words.some((w) => (prefix ? w.startsWith(word) : w === word));
}

/** [start, end) character spans of `text` that match a term. */
function matchSpans(text: string, terms: HighlightTerm[]): [number, number][] {
  const runs = runsOf(text);
  const spans: [number, number][] = [];
  for (let i = 0; i < runs.length; i++) {
    for (const t of terms) {
      const n = t.words.length;
      if (i + n > runs.length) continue;
      let ok = true;
      for (let k = 0; k < n && ok; k++) ok = wordMatches(runs[i + k], t.words[k], t.prefix && k === n - 1);
      if (ok) {
        spans.push([runs[i].start, runs[i + n - 1].end]);
        break;
      }
    }
  }
  return spans;
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** One snippet around `spans[first]` with every span inside it marked. Text is HTML-escaped; only <mark> is markup. */
function snippet(
  text: string,
  spans: [number, number][],
  first: number,
): { html: string; end: number; marked: string[] } {
  const [s0] = spans[first];
  let from = Math.max(0, s0 - SNIPPET.context);
  let to = Math.min(text.length, spans[first][1] + SNIPPET.context * 2);
  while (from > 0 && !/\s/.test(text[from - 1]) && s0 - from < SNIPPET.context + 20) from--;
  while (to < text.length && !/\s/.test(text[to]) && to - spans[first][1] < SNIPPET.context * 2 + 20) to++;
  let html = from > 0 ? '…' : '';
  let pos = from;
  const marked: string[] = [];
  for (let i = first; i < spans.length && spans[i][0] < to; i++) {
    const [a, b] = spans[i];
    if (a < pos) continue;
    const end = Math.min(b, to);
    html += `${escapeHtml(text.slice(pos, a))}<mark>${escapeHtml(text.slice(a, end))}</mark>`;
    marked.push(fold(text.slice(a, end)).replace(/\s+/g, ' '));
    pos = end;
  }
  html += escapeHtml(text.slice(pos, to)) + (to < text.length ? '…' : '');
  return { html: html.replace(/\s+/g, ' ').trim(), end: to, marked };
}

/**
 * Up to three snippets, taken from the texts in the order given (the content first, then the name, then each
 * metadata value on its own). Each match is shown once: a snippet that marks nothing new (the topic repeated in the
 * metadata after the name showed it) is left out.
 */
export function highlights(texts: string[], terms: HighlightTerm[]): string[] {
  if (terms.length === 0) return [];
  // Longer terms first so that a phrase is marked as a whole rather than word by word.
  const ordered = [...terms].sort((a, b) => b.words.length - a.words.length);
  const out: string[] = [];
  const shown = new Set<string>();
  for (const text of texts) {
    if (!text) continue;
    const spans = matchSpans(text, ordered);
    let i = 0;
    while (i < spans.length && out.length < SNIPPET.maxSnippets) {
      const { html, end, marked } = snippet(text, spans, i);
      if (marked.some((m) => !shown.has(m))) out.push(html);
      for (const m of marked) shown.add(m);
      while (i < spans.length && spans[i][0] < end) i++;
    }
    if (out.length >= SNIPPET.maxSnippets) break;
  }
  return out;
}
