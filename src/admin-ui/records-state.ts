// The records page's state, without a DOM: what the URL asks for (page size, offset, filter, sort, status), the addresses
// of the other views of the same list, the columns shown, the selection of rows and what the page says when it is
// empty. page-records.ts renders it (records-table.ts), records-api.ts reads it.
import { filterFromParam } from './record-filter.js';
import { DEFAULT_SORT, sortParam, type SortOrder } from './record-sort.js';
import { statusFromParam, type RecordStatus } from './record-status-state.js';
import type { FieldDefinition, JsonObject, ModelDefinition, RecordPage } from './types.js';

export const LIMITS = [20, 50, 100] as const;
export const DEFAULT_LIMIT = 50;

/** What the URL's query asks for. */
export interface RecordsQuery {
  limit: number;
  offset: number;
  /** The `filter` parameter as written (null when absent). */
  filterText: string | null;
  /** The filter it parses to; undefined when there is none or it is not a JSON object. */
  filter: JsonObject | undefined;
  /** Checked against the model once it is read; the server refuses one it does not know. */
  sortText: string;
  /** A model with drafts: only the records of this status (`status`; undefined: all). */
  status: RecordStatus | undefined;
}

export function parseRecordsQuery(query: URLSearchParams): RecordsQuery {
  const limitParam = Number(query.get('limit'));
  const offsetParam = Number(query.get('offset'));
  const filterText = query.get('filter');
  return {
    limit: (LIMITS as readonly number[]).includes(limitParam) ? limitParam : DEFAULT_LIMIT,
    offset: Number.isInteger(offsetParam) && offsetParam > 0 ? offsetParam : 0,
    filterText,
    filter: filterFromParam(filterText),
    sortText: query.get('sort') ?? DEFAULT_SORT,
    status: statusFromParam(query.get('status')),
  };
}

/** A change of the view: a missing key keeps the current value, `filter: null` removes the filter, `status: null` too. */
export interface RecordsChange {
  offset?: number;
  limit?: number;
  sort?: SortOrder;
  filter?: JsonObject | null;
  status?: RecordStatus | null;
}

/** The address of the records of `modelId` with `next` applied to the current view. */
export function recordsHref(
  modelId: string,
  current: { limit: number; offset: number; order: SortOrder; filter: JsonObject | undefined; status?: RecordStatus | undefined },
  next: RecordsChange,
): string {
  const query = new URLSearchParams({
    sort: sortParam(next.sort ?? current.order),
    limit: String(next.limit ?? current.limit),
    offset: String(Math.max(0, next.offset ?? current.offset)),
  });
  const nextFilter = next.filter === null ? undefined : (next.filter ?? current.filter);
  if (nextFilter) query.set('filter', JSON.stringify(nextFilter));
  const nextStatus = next.status === null ? undefined : (next.status ?? current.status);
  if (nextStatus) query.set('status', nextStatus);
  return `#/models/${modelId}/records?${query}`;
}

/** The offset of the last page when `page` lies past the end (its last records deleted); null when it does not. */
export function pastEndOffset(page: RecordPage, offset: number, limit: number): number | null {
  if (page.items.length === 0 && page.total > 0 && offset > 0) return Math.floor((page.total - 1) / limit) * limit;
  return null;
}

/** Where to go after `deleted` records of a page of `shown` went: the page before when this one is emptied. */
export function offsetAfterDelete(deleted: number, shown: number, offset: number, limit: number): number {
  return deleted === shown && offset > 0 ? offset - limit : offset;
}

/** The columns besides the display field: product SKU and price first, then the others, four at most. */
export function otherColumns(model: ModelDefinition, display: FieldDefinition | undefined): FieldDefinition[] {
  const priority = [model.product?.skuField, model.product?.priceField].filter((key): key is string => Boolean(key));
  return [
    ...model.fields.filter((field) => priority.includes(field.key) && field !== display),
    ...model.fields.filter((field) => !priority.includes(field.key) && field !== display),
  ].slice(0, 4);
}

export function columnLabel(model: ModelDefinition, column: string): string {
  if (column === 'createdAt') return 'Created';
  if (column === 'updatedAt') return 'Updated';
  return model.fields.find((field) => field.key === column)?.label ?? column;
}

/** The selection of rows for deleting several records at once: the records of this page only. */
export type Selection = ReadonlySet<string>;

export function toggleRecord(selection: Selection, id: string, on: boolean): Selection {
  const next = new Set(selection);
  if (on) next.add(id);
  else next.delete(id);
  return next;
}

export function toggleAll(selection: Selection, ids: readonly string[], on: boolean): Selection {
  const next = new Set(selection);
  for (const id of ids) {
    if (on) next.add(id);
    else next.delete(id);
  }
  return next;
}

/** "3 records" / "1 record" */
export function recordCount(count: number): string {
  return `${count.toLocaleString()} ${count === 1 ? 'record' : 'records'}`;
}

/** What the selection shows: the status text, the delete button and the select-all box. */
export function selectionSummary(selected: number, rows: number) {
  return {
    status: selected === 0 ? 'None selected' : `${recordCount(selected)} selected`,
    deleteDisabled: selected === 0,
    allChecked: selected > 0 && selected === rows,
    indeterminate: selected > 0 && selected < rows,
  };
}

/** Why the table is empty: the server refused the filter or the sort, a filter matches nothing, or no records. */
export type EmptyReason = 'filter-refused' | 'sort-refused' | 'no-match' | 'no-records';

export function emptyReason(refusal: string | undefined, filtering: boolean): EmptyReason {
  if (refusal) return refusal.startsWith('filter') ? 'filter-refused' : 'sort-refused';
  return filtering ? 'no-match' : 'no-records';
}

/** The problem the filter bar shows: the server's refusal of the filter, or a filter parameter that is no object. */
export function filterProblem(refusal: string | undefined, query: RecordsQuery): string | undefined {
  if (refusal?.startsWith('filter')) return refusal;
  if (query.filterText && !query.filter) return 'The filter in the address is not a JSON object; all records are shown.';
  return undefined;
}

/** Whether the view is filtered, or meant to be (a filter parameter that does not parse counts, a status too). */
export function isFiltering(query: RecordsQuery): boolean {
  return query.filter !== undefined || (query.filterText !== null && query.filterText !== '') || query.status !== undefined;
}

/** What a screen reader hears once the page is shown. */
export function recordsAnnouncement(page: RecordPage, offset: number, filtering: boolean): string {
  if (page.total === 0) return filtering ? 'No records match the filter' : 'No records';
  return `Records ${offset + 1} to ${offset + page.items.length} of ${page.total}`;
}
