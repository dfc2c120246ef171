// What PostgreSQL's record writes do for drafts models' records (docs/lifecycle.md), inside their transactions.
import { forgetPublishedCopy as forgetSql, forgetPublishedLinks } from '../query/drafts-sql.js';
import type { Queryable } from './sql.js';
export { hasPublishedCopy } from '../core/publishing.js';

/**
 * What a change of a record's data (`data`, the SQL of the new data; `id`, of the record's id) sets its state to, in
 * the same UPDATE: a published record is `published` again when its data equals its published copy's (jsonb
 * equality is deep), else `changed`; any other state stays.
 */
export function statusAfterChange(data: string, id: string): string {
  return `publish_status = CASE WHEN publish_status IN ('published', 'changed')
    THEN CASE WHEN (SELECT p.data FROM published_records p WHERE p.id = ${id}) = ${data}::jsonb THEN 'published' ELSE 'changed' END
    ELSE publish_status END`;
}

/** A deleted record's published copy goes with it, and its model's count of them. */
export async function forgetPublishedCopy(db: Queryable, id: string, modelId: string): Promise<void> {
  const [count, copy] = forgetSql('$1', '$2');
  await db.query(`WITH counted AS (${count!}) ${copy!}`, [id, modelId]);
  await db.query(forgetPublishedLinks('$1'), [id]);
}
