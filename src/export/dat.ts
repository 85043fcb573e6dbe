/**
 * The Concordance load file (issue 24): UTF-8 with BOM, records ending CRLF, every field wrapped in þ (U+00FE) and
 * separated by U+0014; in a value a þ is doubled, U+0014 dropped and a line break becomes ® (U+00AE).
 */
export const QUOTE = '\u00fe';
export const SEPARATOR = '\u0014';
export const NEWLINE = '\u00ae';
export const BOM = '\ufeff';

export const DAT_FIELDS = [
  'DOCID',
  'PARENT_DOCID',
  'BEGATTACH',
  'ENDATTACH',
  'CUSTODIAN',
  'CUSTODIAN_NAME',
  'CUSTODIAN_EMAIL',
  'ALL_CUSTODIANS',
  'SOURCE',
  'KIND',
  'FILENAME',
  'ORIGINAL_PATH',
  'FILE_SIZE',
  'MD5',
  'SHA256',
  'PROVIDER_HASH',
  'DATE_CREATED',
  'DATE_MODIFIED',
  'DATE_SENT',
  'FROM',
  'TO',
  'CONVERSATION',
  'NATIVE_PATH',
  'TEXT_PATH',
  'ITEM_ID',
  'RUN_ID',
  'COLLECTED_AT',
] as const;

export type DatField = (typeof DAT_FIELDS)[number];
export type DatRecord = Record<DatField, string>;

export function datValue(value: string): string {
  return value
    .replaceAll(SEPARATOR, '')
    .replace(/\r\n|\r|\n/g, NEWLINE)
    .replaceAll(QUOTE, QUOTE + QUOTE);
}

export function datLine(values: readonly string[]): string {
  return `${values.map((v) => QUOTE + datValue(v) + QUOTE).join(SEPARATOR)}\r\n`;
}

/** The whole load file: the header record, then one record per document. */
export function datFile(records: DatRecord[]): Buffer {
  const lines = [datLine(DAT_FIELDS), ...records.map((r) => datLine(DAT_FIELDS.map((f) => r[f])))];
  return Buffer.from(BOM + lines.join(''), 'utf8');
}
