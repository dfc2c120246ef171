// Pages in updatedAt order on SQLite, without an index entry for every record. The index records_model_updated
// is partial (migration 10): it holds only the records whose updated time is not their created time. A record
// never modified (every one an import or a create writes) has updated_at = created_at, so its place in updatedAt
// order is its place in createdAt order, which records_model_created serves. A page is the merge of the two
// arms, each read in order from its own index: SQLite plans it as MERGE (UNION ALL), no temporary B-tree, and
// unfiltered, reads no record that an offset skips (docs/benchmarks.md, issue 13: its cost against a full index).
//
// A modify in the same millisecond as the creation leaves updated_at = created_at: the record stays in the first
// arm, which is still its right place (its updated_at is that time). The merge orders by the time, then the id,
// exactly as ORDER BY updated_at, id: the two arms never hold the same record.

/** The records whose updated time is their created time (never modified, or modified in that millisecond). */
export const NEVER_UPDATED = 'updated_at = created_at';
/** The records in records_model_updated: its WHERE, word for word (SQLite uses a partial index only then). */
export const UPDATED = 'updated_at <> created_at';

export type Direction = 'ASC' | 'DESC';

/** The conditions of one page, each arm's own (the model, the filter, a cursor; without the arm's own term). */
export interface Arms {
  neverUpdated: string;
  updated: string;
}

/**
 * The SQL of an updatedAt page of `columns` (of `records`). The merge picks the page's times, ids and rowids from
 * the two indexes alone (records_model_created ends with updated_at to tell its arm's records without reading
 * them, records_model_updated ends with created_at; an index entry holds its row's rowid), so the records an
 * offset skips are never read; then the page's records are read by rowid, in the merge's order. `window` is the
 * LIMIT / OFFSET.
 */
export function updatedOrderSql(columns: string, arms: Arms, direction: Direction, window: string): string {
  return (
    `SELECT ${columns} FROM (` +
    `SELECT created_at AS t, id AS i, rowid AS k FROM records WHERE (${arms.neverUpdated}) AND ${NEVER_UPDATED}` +
    ` UNION ALL SELECT updated_at AS t, id AS i, rowid AS k FROM records WHERE (${arms.updated}) AND ${UPDATED}` +
    ` ORDER BY t ${direction}, i ${direction} ${window}` +
    `) AS page CROSS JOIN records ON records.rowid = page.k ORDER BY page.t ${direction}, page.i ${direction}`
  );
}

/** The rows after a cursor `(time, id)` in each arm's own index order. */
export function updatedOrderCursor(direction: Direction, timeParameter: string, idParameter: string): Arms {
  const comparison = direction === 'ASC' ? '>' : '<';
  return {
    neverUpdated: `(created_at, id) ${comparison} (${timeParameter}, ${idParameter})`,
    updated: `(updated_at, id) ${comparison} (${timeParameter}, ${idParameter})`,
  };
}
