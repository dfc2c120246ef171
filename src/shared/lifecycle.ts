// The names of the content lifecycle (docs/lifecycle.md) that the service, the SDK and the admin application share:
// a record's status, and what a schedule does and is.

/** `draft`: never published, or unpublished; `published`: the working copy is the published copy; `changed`: it differs. */
export const RECORD_STATUSES = ['draft', 'published', 'changed'] as const;
export type RecordStatus = (typeof RECORD_STATUSES)[number];

/** What a schedule does at its time. */
export const SCHEDULE_ACTIONS = ['publish', 'unpublish'] as const;
export type ScheduleAction = (typeof SCHEDULE_ACTIONS)[number];

/** `pending` until its time, then `done` (or `failed`, with `error`), or `cancelled` before it. */
export const SCHEDULE_STATUSES = ['pending', 'done', 'failed', 'cancelled'] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

/** A schedule, as the admin API answers it (times in ISO 8601). */
export interface Schedule {
  id: string;
  action: ScheduleAction;
  /** When it is (or was) due. */
  at: string;
  /** The records, in the order given. */
  ids: string[];
  status: ScheduleStatus;
  /** Why a failed schedule changed nothing (the id that was gone); null otherwise. */
  error: string | null;
  createdAt: string;
  /** The email of the user whose token or session made it. */
  createdBy: string | null;
  /** When it was carried out, failed or was cancelled; null while pending. */
  doneAt: string | null;
}

export interface ScheduleList {
  total: number;
  hasMore: boolean;
  items: Schedule[];
}
