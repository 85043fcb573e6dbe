/**
 * Text the stores cannot keep faithfully: NUL (PostgreSQL refuses it in text and in JSON), or a lone UTF-16
 * surrogate (it has no UTF-8 form: it would be stored as U+FFFD, i.e. altered). In `u` mode a paired surrogate is
 * one code point and does not match.
 */
const UNSTORABLE = /[\u0000\uD800-\uDFFF]/u;

export function storable(text: string): boolean {
  return !UNSTORABLE.test(text);
}
