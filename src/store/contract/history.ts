// The history half of the store contract (docs/lifecycle.md): the revisions of a record, current one included.
import type { Revision } from '../../domain/revisions.js';

/** A revision with what a read of the record as it was needs. */
export interface RecordRevision extends Revision {
  modelId: string;
  /** The user id that made the revision (Revision.createdBy is their email). */
  createdByUser: string | null;
  /** When the record was first created, as far as its history tells. */
  recordCreatedAt: string;
  /** The user id that created it, as far as its history tells. */
  recordCreatedBy: string | null;
}

export interface HistoryStore {
  /** Revisions kept per record (0: none, and every history reads empty). */
  readonly keep: number;
  /** Newest first; null when the workspace has no such record and keeps no history of one. */
  list(workspaceId: string, id: string, limit: number, offset: number): Promise<{ total: number; items: Revision[] } | null>;
  /** One revision of the record, the current one or a kept one; null when there is no such revision. */
  get(workspaceId: string, id: string, revision: number): Promise<RecordRevision | null>;
  /** The newest revision made at or before `at` (epoch milliseconds); null when there is none. */
  latestAt(workspaceId: string, id: string, at: number): Promise<RecordRevision | null>;
  /** Forgets the histories of records deleted before `before` (epoch milliseconds); how many revisions went. */
  forgetDeleted(before: number): Promise<number>;
}
