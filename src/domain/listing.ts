import { ServiceError } from './errors.js';

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
}

/** Turns list arguments into a window: default 20, clamped to 100, negatives refused. */
export function listWindow(args: ListArguments): ListWindow {
  const limit = args.limit ?? DEFAULT_LIMIT;
  const offset = args.offset ?? 0;
  if (limit < 0) throw new ServiceError('BAD_USER_INPUT', 'limit: must not be negative', { field: 'limit' });
  if (offset < 0) throw new ServiceError('BAD_USER_INPUT', 'offset: must not be negative', { field: 'offset' });
  const sort = args.sort ?? 'createdAt_asc';
  if (!(SORTS as readonly string[]).includes(sort)) {
    throw new ServiceError('BAD_USER_INPUT', `sort: must be one of ${SORTS.join(', ')}`, { field: 'sort' });
  }
  return { limit: Math.min(limit, MAX_LIMIT), offset, sort: sort as RecordSort };
}

export function hasMore(window: ListWindow, itemCount: number, total: number): boolean {
  return window.offset + itemCount < total;
}
