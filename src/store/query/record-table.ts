// The two tables a record's reads may go to: `records` (working copies, and every record of a model without drafts)
// and `published_records` (the published copies of drafts models' records, docs/lifecycle.md). published_records
// has every column the reads select, under the same names, so a read's statement is written once, for `records`,
// and put onto the other table by name.
export type RecordTable = 'records' | 'published_records';

/**
 * The statement over `table` instead of `records` (a whole word: records_model_created stays), and over the published
 * copies' relation links (published_record_links) instead of the working copies' (record_links).
 */
export function onTable(sql: string, table: RecordTable): string {
  if (table === 'records') return sql;
  return sql.replace(/\brecords\b/g, table).replace(/\brecord_links\b/g, 'published_record_links');
}
