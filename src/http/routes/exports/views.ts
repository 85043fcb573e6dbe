import { Type } from 'typebox';
import type { ExportRow } from '../../../read/exports.ts';

export const ExportParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  export_id: Type.String({ minLength: 1, maxLength: 64 }),
});

export const ExportStatus = Type.Union([
  Type.Literal('queued'),
  Type.Literal('running'),
  Type.Literal('succeeded'),
  Type.Literal('failed'),
  Type.Literal('cancelled'),
]);
export type ExportStatusName = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

const Counts = Type.Object({
  documents: Type.Integer(),
  natives: Type.Integer(),
  texts: Type.Integer(),
  families: Type.Integer(),
  duplicates_suppressed: Type.Integer(),
});

export const ExportView = Type.Object({
  export_id: Type.String(),
  status: ExportStatus,
  created_at: Type.String({ format: 'date-time' }),
  finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  counts: Type.Union([Counts, Type.Null()], { description: 'Known once the export has succeeded.' }),
  bytes: Type.Union([Type.Integer(), Type.Null()], { description: "The package's size." }),
  sha256: Type.Union([Type.String(), Type.Null()], { description: "The package's SHA-256 (its download's ETag)." }),
  error: Type.Union([Type.String(), Type.Null()]),
});

export function exportView(row: ExportRow) {
  return {
    export_id: row.id,
    status: row.status as ExportStatusName,
    created_at: row.created_at,
    finished_at: row.finished_at,
    counts: row.counts
      ? (JSON.parse(row.counts) as {
          documents: number;
          natives: number;
          texts: number;
          families: number;
          duplicates_suppressed: number;
        })
      : null,
    bytes: row.bytes === null ? null : Number(row.bytes),
    sha256: row.sha256,
    error: row.error,
  };
}
