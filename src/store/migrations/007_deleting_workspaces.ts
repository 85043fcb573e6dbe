import type { Kysely } from 'kysely';

/**
 * `workspaces.deleting_at`: deleting a workspace is a state too (sync/deletion.ts), so that a legal hold placed on
 * the workspace while its collections are being purged is refused instead of acknowledged for content that goes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('workspaces').addColumn('deleting_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('workspaces').dropColumn('deleting_at').execute();
}
