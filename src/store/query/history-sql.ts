// The statements that keep a record's history (docs/lifecycle.md), the same on both databases; each takes the
// placeholders of its values (`?` on SQLite, `$n` where PostgreSQL puts it into a larger statement). The record row
// is its current revision: a change first keeps the row's data here.

const REVISION_COLUMNS = 'record_id, revision, workspace_id, model_id, operation, data, created_at, created_by';

/** Keeps the record's current revision among its revisions, before a change or a delete replaces it. */
export function keepCurrentRevision(id: string): string {
  return `INSERT INTO record_revisions (${REVISION_COLUMNS})
    SELECT id, revision, workspace_id, model_id, revision_operation, data, updated_at, updated_by FROM records WHERE id = ${id}`;
}

/** The last entry of a deleted record's history: its data as it was deleted. */
export function keepDeletion(at: string, userId: string, id: string): string {
  return `INSERT INTO record_revisions (${REVISION_COLUMNS})
    SELECT id, revision + 1, workspace_id, model_id, 'delete', data, ${at}, ${userId} FROM records WHERE id = ${id}`;
}

/** Forgets the record's revisions older than the oldest kept. */
export function pruneRevisions(id: string, oldest: string): string {
  return `DELETE FROM record_revisions WHERE record_id = ${id} AND revision < ${oldest}`;
}

/** What an UPDATE of a record's data sets beside it: the next revision and how it came about. */
export function nextRevision(operation: string): string {
  return `revision = revision + 1, revision_operation = ${operation}`;
}

/**
 * Forgets the histories of records whose last entry is a deletion made before a time (epoch milliseconds), and
 * which were not brought back since.
 */
export function forgetDeleted(before: string): string {
  return `DELETE FROM record_revisions WHERE record_id IN (
    SELECT d.record_id FROM record_revisions d
    WHERE d.operation = 'delete' AND d.created_at < ${before}
      AND NOT EXISTS (SELECT 1 FROM record_revisions l WHERE l.record_id = d.record_id AND l.revision > d.revision)
      AND NOT EXISTS (SELECT 1 FROM records r WHERE r.id = d.record_id)
  )`;
}
