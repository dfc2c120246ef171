// Schedules (docs/lifecycle.md): a publish or unpublish of many records at a set time.
import type { ScheduleAction, ScheduleStatus } from '../../shared/lifecycle.js';

export type { ScheduleStatus };

export interface StoredSchedule {
  id: string;
  workspaceId: string;
  action: ScheduleAction;
  /** Epoch milliseconds. */
  at: number;
  ids: string[];
  status: ScheduleStatus;
  /** Why a failed schedule changed nothing (the first id that was gone by then). */
  error: string | null;
  createdAt: number;
  /** The email of the user whose token or session made it; null when that user is gone. */
  createdBy: string | null;
  doneAt: number | null;
}

export interface NewSchedule {
  id: string;
  workspaceId: string;
  action: ScheduleAction;
  at: number;
  ids: string[];
  createdAt: number;
  /** The user's id. */
  userId: string | null;
}

export interface ScheduleStore {
  create(schedule: NewSchedule): Promise<StoredSchedule>;
  get(workspaceId: string, id: string): Promise<StoredSchedule | null>;
  /** The workspace's schedules, by time (then id); `status` null: all. */
  list(
    workspaceId: string,
    status: string | null,
    limit: number,
    offset: number,
  ): Promise<{ total: number; items: StoredSchedule[] }>;
  /** Cancels a pending schedule; 'not-pending' when it is carried out, failed or cancelled already; null: none. */
  cancel(workspaceId: string, id: string, now: number): Promise<StoredSchedule | 'not-pending' | null>;
  /**
   * Carries out the pending schedules due at `now`, each in one transaction with its publish or unpublish (done), or
   * (an id gone by then) changing nothing (failed). Each is carried out once, whichever process asks: a schedule
   * another process is carrying out is skipped. Returns those it carried out.
   */
  runDue(now: number): Promise<StoredSchedule[]>;
}
