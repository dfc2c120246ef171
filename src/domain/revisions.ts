// Record history (docs/lifecycle.md): every write that changes a record's data makes a revision. The current
// revision is the record itself; the store keeps the data a change replaced, the newest `historyKeep` of them.
import type { RecordData } from './fields.js';

export const REVISION_OPERATIONS = ['create', 'import', 'patch', 'update', 'restore', 'discard', 'delete'] as const;
export type RevisionOperation = (typeof REVISION_OPERATIONS)[number];

/** How the revision a write makes came about, for writes that change a record in place. */
export type ModifyOperation = Extract<RevisionOperation, 'patch' | 'update' | 'restore' | 'discard'>;

/** The revisions kept per record unless --history-keep / HISTORY_KEEP says otherwise. */
export const DEFAULT_HISTORY_KEEP = 100;
/** A deleted record's history is kept this long after its deletion. */
export const DELETED_HISTORY_DAYS = 30;

export interface Revision {
  revision: number;
  operation: RevisionOperation;
  data: RecordData;
  createdAt: string;
  /** The email of the user whose token or session made it; null when that user is gone or none made it. */
  createdBy: string | null;
}

export interface RevisionPage {
  total: number;
  hasMore: boolean;
  items: Revision[];
}

/**
 * Once a record is at revision `current`, the revisions below the returned one are past the newest `keep`; null when
 * none is (or none is kept at all, keep 0, so there is nothing to forget).
 */
export function forgottenBelow(current: number, keep: number): number | null {
  return keep > 0 && current > keep ? current - keep + 1 : null;
}
