// The order of the records table: `<column>_asc` / `<column>_desc` (delivery.md "sort") for the creation and
// update times and every top-level text, number, boolean or date field, as the page URL's `sort` parameter.
import type { FieldDefinition, ModelDefinition } from './types.js';

export const DEFAULT_SORT = 'createdAt_desc';
const TIMESTAMPS = ['createdAt', 'updatedAt'];
const SORTABLE_TYPES: readonly string[] = ['text', 'number', 'boolean', 'date'];

export interface SortOrder {
  /** `createdAt`, `updatedAt` or a field key. */
  column: string;
  descending: boolean;
}

export function isSortableField(field: FieldDefinition): boolean {
  return SORTABLE_TYPES.includes(field.type);
}

/** The order a `sort` parameter names, when the model can be sorted that way; else the default (newest first). */
export function sortOrderOf(param: string | null, model: ModelDefinition): SortOrder {
  const match = /^(.+)_(asc|desc)$/.exec(param ?? '');
  if (match) {
    const column = match[1]!;
    const sortable = TIMESTAMPS.includes(column) || model.fields.some((field) => field.key === column && isSortableField(field));
    if (sortable) return { column, descending: match[2] === 'desc' };
  }
  return { column: 'createdAt', descending: true };
}

export function sortParam(order: SortOrder): string {
  return `${order.column}_${order.descending ? 'desc' : 'asc'}`;
}

/**
 * The order after a click on a column's header: the other direction of the current column, or a new column in its
 * natural first direction (times newest first, fields ascending).
 */
export function nextSortOrder(current: SortOrder, column: string): SortOrder {
  if (current.column === column) return { column, descending: !current.descending };
  return { column, descending: TIMESTAMPS.includes(column) };
}

/** How a direction reads for a column: newest first for times, ascending for fields. */
export function directionText(column: string, descending: boolean): string {
  if (TIMESTAMPS.includes(column)) return descending ? 'newest first' : 'oldest first';
  return descending ? 'descending' : 'ascending';
}
