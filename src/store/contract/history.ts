// The history half of the store contract (docs/lifecycle.md): the revisions of a record, current one included.
import type { Revision } from '../../domain/revisions.js';
import type { StoredRecord } from '../../domain/stored-record.js';

/** A revision with the model its record belongs to (what a restore needs). */
export interface RecordRevision extends Revision {
  modelId: string;
}

export interface HistoryStore {
  /** Revisions kept per record (0: none, and every history reads empty). */
  readonly keep: number;
  /** Newest first; null when the workspace has no such record and keeps no history of one. */
  list(workspaceId: string, id: string, limit: number, offset: number): Promise<{ total: number; items: Revision[] } | null>;
  /** One revision of the record, the current one or a kept one; null when there is no such revision. */
  get(workspaceId: string, id: string, revision: number): Promise<RecordRevision | null>;
  /** The record's newest revision (a deleted record's: its deletion); null when none is kept. */
  latest(workspaceId: string, id: string): Promise<RecordRevision | null>;
  /**
   * The record as it was at `at` (epoch milliseconds): the revision current then, with when and by whom the record
   * was first created as far as its history tells. Null before its oldest kept revision and while it was deleted.
   */
  asOf(workspaceId: string, id: string, at: number): Promise<StoredRecord | null>;
  /** Forgets the histories of records deleted before `before` (epoch milliseconds); how many revisions went. */
  forgetDeleted(before: number): Promise<number>;
}
