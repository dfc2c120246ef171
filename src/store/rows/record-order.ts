// The SQL of record list order and keyset paging, the same in both dialects.
import type { RecordSort } from '../../domain/listing.js';

/** Every sort ends on the id, so pages never overlap or skip records with equal times. */
export const ORDER_BY: Record<RecordSort, string> = {
  createdAt_asc: 'created_at ASC, id ASC',
  createdAt_desc: 'created_at DESC, id DESC',
  updatedAt_asc: 'updated_at ASC, id ASC',
  updatedAt_desc: 'updated_at DESC, id DESC',
};

/** `(created_at, id) > (a, b)`: the rows after a cursor in the sort's order, as an index range scan. */
export function afterCursor(sort: RecordSort, timeParameter: string, idParameter: string): string {
  const column = sort.startsWith('createdAt') ? 'created_at' : 'updated_at';
  const comparison = sort.endsWith('_asc') ? '>' : '<';
  return `(${column}, id) ${comparison} (${timeParameter}, ${idParameter})`;
}
