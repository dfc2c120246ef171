// The SDK's types of record history (docs/lifecycle.md), as the admin API answers them.
import type { JsonObject } from './types.js';

export interface Revision<Data = JsonObject> {
  revision: number;
  /** create, import, patch, update, restore, discard or delete */
  operation: string;
  data: Data;
  createdAt: string;
  /** The email of the user whose token or session made it. */
  createdBy: string | null;
}

export interface RevisionList<Data = JsonObject> {
  total: number;
  hasMore: boolean;
  items: Revision<Data>[];
}

/** One operation of an RFC 6902 JSON Patch, with the value it replaces or removes. */
export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace';
  path: string;
  value?: unknown;
  oldValue?: unknown;
}

export interface HistoryOptions {
  limit?: number;
  offset?: number;
  signal?: AbortSignal;
}
