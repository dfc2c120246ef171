import type { RecordData } from './fields.js';
import type { RecordStatus } from '../shared/lifecycle.js';

/** A record as stored, and as the admin and delivery APIs answer with it. */
export interface StoredRecord {
  id: string;
  modelId: string;
  workspaceId: string;
  data: RecordData;
  createdAt: string;
  updatedAt: string;
  createdBy: string | null;
  updatedBy: string | null;
  /** The number of the revision the record is at (history: docs/lifecycle.md). */
  revision: number;
  /** Drafts (lifecycle.md): null on a model without drafts (every write live), else the working copy's state. */
  publishStatus?: PublishStatus | null;
  /** The revision that is live; null when not published (or a model without drafts). */
  publishedRevision?: number | null;
  publishedAt?: string | null;
}

export type PublishStatus = RecordStatus;
