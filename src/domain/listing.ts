import { ServiceError } from './errors.js';
import { RECORD_STATUSES } from '../shared/lifecycle.js';
import type { ModelDefinition } from './fields.js';
import { parseFilter, type FilterNode } from './filter.js';
import { PathProblem, resolvePath, type DataValue } from './record-paths.js';

export const SORTS = ['createdAt_asc', 'createdAt_desc', 'updatedAt_asc', 'updatedAt_desc'] as const;
export type RecordSort = (typeof SORTS)[number];

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

export interface ListWindow {
  limit: number;
  offset: number;
  sort: RecordSort;
}

export interface ListArguments {
  limit?: number | null;
  offset?: number | null;
  sort?: string | null;
  filter?: unknown;
  /** Only records in these states (draft, published, changed; the admin route's `status`). */
  status?: readonly string[] | null;
}

/** The order of a list: by a timestamp, or by a field's value (records missing it last); ties by id. */
export type RecordOrder = { kind: 'time'; sort: RecordSort } | { kind: 'field'; target: DataValue; descending: boolean };

/** A page of a model's records as the store reads it: the matching records, in order, `offset` skipped. */
export interface RecordQuery {
  filter: FilterNode | null;
  order: RecordOrder;
  limit: number;
  offset: number;
}

/**
 * Reads list arguments against the model: the window (default 20, clamped to 100, negatives refused), the sort among the timestamps and the
 * model's sortable fields (`price_desc`, or the short forms `price` / `-price`), and the filter.
 */
export function readListing(
  model: Pick<ModelDefinition, 'fields' | 'product'> & { drafts?: boolean },
  args: ListArguments,
): RecordQuery {
  const { limit, offset } = pageBounds(args);
  const order = parseSort(model, args.sort ?? 'createdAt_asc');
  const filter = parseFilter(model, args.filter);
  const status = statusFilter(model.drafts === true, args.status);
  return {
    filter: status === null ? filter : filter === null ? status : { kind: 'and', nodes: [filter, status] },
    order,
    limit,
    offset,
  };
}

/**
 * The filter of a `status` argument (null: none). A model without drafts holds published records only; a drafts
 * model's records carry their state.
 */
function statusFilter(drafts: boolean, status: readonly string[] | null | undefined): FilterNode | null {
  if (status === undefined || status === null) return null;
  status.forEach((value, index) => {
    if (!(RECORD_STATUSES as readonly string[]).includes(value)) {
      throw new ServiceError('BAD_USER_INPUT', `status.${index}: expected draft, published or changed, got "${value}"`, {
        field: `status.${index}`,
      });
    }
  });
  if (!drafts) return status.includes('published') ? null : { kind: 'or', nodes: [] };
  return { kind: 'in', target: { kind: 'status' }, values: [...new Set(status)] };
}

/** A list read by the store's plain page query (and its page cursors): no filter, a timestamp order. */
export function plainWindow(query: RecordQuery): ListWindow | null {
  if (query.filter !== null || query.order.kind !== 'time') return null;
  return { limit: query.limit, offset: query.offset, sort: query.order.sort };
}

/**
 * The window of a list that is plain whatever the model (no filter, a timestamp order), read from the arguments
 * alone: readListing then plainWindow give the same window for every model. Null for any other list, and for
 * arguments readListing would refuse (the caller then reads the model and the list apart).
 */
export function plainWindowOf(args: ListArguments): ListWindow | null {
  if (args.filter !== undefined && args.filter !== null) return null;
  if (args.status !== undefined && args.status !== null) return null;
  const time = timeSort(args.sort ?? 'createdAt_asc');
  if (time === null || (args.limit ?? 0) < 0 || (args.offset ?? 0) < 0) return null;
  return { ...pageBounds(args), sort: time };
}

/** A list's window (the contract's Listing): limit default 20 and clamped to 100, negatives refused naming the argument. */
export function pageBounds(args: { limit?: number | null; offset?: number | null }): { limit: number; offset: number } {
  const limit = args.limit ?? DEFAULT_LIMIT;
  const offset = args.offset ?? 0;
  if (limit < 0) throw new ServiceError('BAD_USER_INPUT', 'limit: must not be negative', { field: 'limit' });
  if (offset < 0) throw new ServiceError('BAD_USER_INPUT', 'offset: must not be negative', { field: 'offset' });
  return { limit: Math.min(limit, MAX_LIMIT), offset };
}

const SHORT_TIME_SORTS: Record<string, RecordSort> = {
  createdAt: 'createdAt_asc',
  '-createdAt': 'createdAt_desc',
  updatedAt: 'updatedAt_asc',
  '-updatedAt': 'updatedAt_desc',
};

/** A timestamp sort by its long name or its short form; null for any other. */
function timeSort(sort: string): RecordSort | null {
  if ((SORTS as readonly string[]).includes(sort)) return sort as RecordSort;
  return Object.hasOwn(SHORT_TIME_SORTS, sort) ? SHORT_TIME_SORTS[sort]! : null;
}

function parseSort(model: Pick<ModelDefinition, 'fields' | 'product'>, sort: string): RecordOrder {
  const time = timeSort(sort);
  if (time) return { kind: 'time', sort: time };
  const suffixed = /^(.+)_(asc|desc)$/.exec(sort);
  const byName = suffixed ? sortableField(model, suffixed[1]!) : null;
  if (byName) return { kind: 'field', target: byName, descending: suffixed![2] === 'desc' };
  const descending = sort.startsWith('-');
  const short = sortableField(model, descending ? sort.slice(1) : sort);
  if (short) return { kind: 'field', target: short, descending };
  const names = [...SORTS, ...sortableKeys(model).flatMap((key) => [`${key}_asc`, `${key}_desc`])];
  const example = sortableKeys(model)[0] ?? 'updatedAt';
  throw new ServiceError(
    'BAD_USER_INPUT',
    `sort: must be one of ${names.join(', ')} (or a short form such as ${example} or -${example})`,
    { field: 'sort' },
  );
}

/** The fields a list sorts by: top-level text, number, boolean and date fields. */
function sortableField(model: Pick<ModelDefinition, 'fields' | 'product'>, key: string): DataValue | null {
  if (key.includes('.')) return null;
  const target = resolvePath(model, key);
  return !(target instanceof PathProblem) && target.kind === 'value' && target.type !== 'relation' ? target : null;
}

function sortableKeys(model: Pick<ModelDefinition, 'fields' | 'product'>): string[] {
  return model.fields.filter((field) => sortableField(model, field.key) !== null).map((field) => field.key);
}

export function hasMore(window: ListWindow | RecordQuery, itemCount: number, total: number): boolean {
  return window.offset + itemCount < total;
}
