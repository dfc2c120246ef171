// The statements of drafts and publishing (docs/lifecycle.md), the same on both databases. Each takes the SQL of
// its values: placeholders (`?` on SQLite, `$n` on PostgreSQL) and, for sets of records, a condition on `id`. A
// record of a drafts model is its working copy in `records` (publish_status draft | published | changed) and its
// published copy, if any, in `published_records`.

const PUBLISHED_COLUMNS =
  'id, model_id, workspace_id, data, sku, created_at, updated_at, created_by, updated_by, revision, publish_status, published_revision, published_at';

/** Published copies made from the working copies as they are (`where`: a condition on `records`). */
function copyToPublished(where: string, at: string): string {
  return `INSERT INTO published_records (${PUBLISHED_COLUMNS})
    SELECT id, model_id, workspace_id, data, sku, created_at, updated_at, created_by, updated_by, revision, 'published', revision, ${at}
    FROM records WHERE ${where}`;
}

/**
 * The published copies' relation links (published_record_links, read by the relation filters on published copies)
 * made from the working copies' links as they are (`where`: a condition on `records`). Each publish drops the
 * records' published links first (dropPublishedLinks) and makes them after its copies; each unpublish drops them.
 */
export function copyLinksToPublished(where: string): string {
  return `INSERT INTO published_record_links (target_id, source_id, field_key)
    SELECT target_id, source_id, field_key FROM record_links WHERE source_id IN (SELECT id FROM records WHERE ${where})`;
}

/** Removes the published copies' links of the records `where` names. */
export function dropPublishedLinks(where: string): string {
  return `DELETE FROM published_record_links WHERE source_id IN (SELECT id FROM records WHERE ${where})`;
}

/** Publishes every record of a model as it is (drafts turned on). */
export function publishModelRecords(modelId: string, at: string): string[] {
  return [
    copyToPublished(`model_id = ${modelId}`, at),
    `UPDATE records SET publish_status = 'published', published_revision = revision, published_at = ${at} WHERE model_id = ${modelId}`,
    `UPDATE models SET published_count = record_count, content_version = content_version + 1 WHERE id = ${modelId}`,
  ];
}

/** How many of a model's records are not published as they are (drafts may be turned off only at 0). */
export function countUnpublished(modelId: string): string {
  return `SELECT count(*) AS n FROM records WHERE model_id = ${modelId} AND (publish_status IS NULL OR publish_status <> 'published')`;
}

/** Drops a model's published copies and its records' states (drafts turned off, every record published). */
export function dropModelDrafts(modelId: string): string[] {
  return [
    `DELETE FROM published_records WHERE model_id = ${modelId}`,
    `UPDATE records SET publish_status = NULL, published_revision = NULL, published_at = NULL WHERE model_id = ${modelId}`,
    `UPDATE models SET published_count = 0 WHERE id = ${modelId}`,
  ];
}

/**
 * Publishes the records `ids` names (a condition on `id`, of drafts models' records only) as they are: their
 * published copies replaced, their states published. Run after the records' locks.
 */
export function publishRecords(ids: string, at: string): string[] {
  return [
    `DELETE FROM published_records WHERE ${ids}`,
    copyToPublished(ids, at),
    `UPDATE records SET publish_status = 'published', published_revision = revision, published_at = ${at} WHERE ${ids}`,
  ];
}

/** Unpublishes the records `ids` names: their published copies gone, their states draft. */
export function unpublishRecords(ids: string): string[] {
  return [
    `DELETE FROM published_records WHERE ${ids}`,
    `UPDATE records SET publish_status = 'draft', published_revision = NULL, published_at = NULL WHERE ${ids}`,
  ];
}

/** Moves a model's count of published copies, and its content version (the delivery route's ETag). */
export function addToPublished(count: string, modelId: string): string {
  return `UPDATE models SET published_count = published_count + ${count}, content_version = content_version + 1 WHERE id = ${modelId}`;
}

/** Removes a deleted record's published copy, and its model's count with it. */
export function forgetPublishedCopy(id: string, modelId: string): string[] {
  return [
    `UPDATE models SET published_count = published_count - 1 WHERE id = ${modelId}
      AND EXISTS (SELECT 1 FROM published_records WHERE id = ${id})`,
    `DELETE FROM published_records WHERE id = ${id}`,
  ];
}

/** Removes a deleted record's published links (they are the published copy's: its id is their source). */
export function forgetPublishedLinks(id: string): string {
  return `DELETE FROM published_record_links WHERE source_id = ${id}`;
}

/** Removes the published links of one field of a model's records (the field removed from the model). */
export function dropPublishedFieldLinks(fieldKey: string, modelId: string): string {
  return `DELETE FROM published_record_links WHERE field_key = ${fieldKey}
    AND source_id IN (SELECT id FROM published_records WHERE model_id = ${modelId})`;
}

/** The data of a record's published copy. */
export function publishedData(id: string): string {
  return `SELECT data FROM published_records WHERE id = ${id}`;
}

/**
 * The records that the relation fields of the records `sources` names (a condition on `source_id`) point at, which the
 * delivery route does not serve: records of drafts models without a published copy. In id order. The assets their
 * media fields hold are not publishable targets, and are left out.
 */
export function unservedTargets(sources: string): string {
  return `SELECT DISTINCT l.target_id AS id FROM record_links l
    WHERE l.${sources}
      AND NOT EXISTS (SELECT 1 FROM records r JOIN models m ON m.id = r.model_id WHERE r.id = l.target_id AND NOT m.drafts)
      AND NOT EXISTS (SELECT 1 FROM published_records p WHERE p.id = l.target_id)
      AND NOT EXISTS (SELECT 1 FROM assets a WHERE a.id = l.target_id)
    ORDER BY l.target_id`;
}

/** The records of `ids` with their models' drafts setting, to publish or unpublish (the lock is the dialect's). */
export function recordsToPublish(workspaceId: string, ids: string): string {
  return `SELECT r.id, r.model_id, r.publish_status, m.drafts FROM records r JOIN models m ON m.id = r.model_id
    WHERE r.workspace_id = ${workspaceId} AND r.${ids}`;
}
