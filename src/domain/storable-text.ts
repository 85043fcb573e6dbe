/** NUL, or a lone UTF-16 surrogate (it has no UTF-8 form: it would be stored as U+FFFD, i.e. altered). In `u` mode a paired surrogate is one code point and does not match. */
const UNSTORABLE = /[\u0000\uD800-\uDFFF]/u;

/** Whether both stores keep this text as it is: PostgreSQL refuses NUL in text, and neither keeps a lone surrogate. */
export function storable(text: string): boolean {
  return !UNSTORABLE.test(text);
}
