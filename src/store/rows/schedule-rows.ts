// Schedule rows and the schedules made from them.
import type { ScheduleAction } from '../../domain/drafts.js';
import type { ScheduleStatus, StoredSchedule } from '../contract/schedules.js';
import { fromJson, type Json } from './json.js';
import type { Millis } from './time.js';

export interface ScheduleRow {
  id: string;
  workspace_id: string;
  action: string;
  at: Millis;
  ids: Json<string[]>;
  status: string;
  error: string | null;
  created_at: Millis;
  created_by: string | null;
  done_at: Millis | null;
}

export function toSchedule(row: ScheduleRow): StoredSchedule {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    action: row.action as ScheduleAction,
    at: Number(row.at),
    ids: fromJson(row.ids),
    status: row.status as ScheduleStatus,
    error: row.error,
    createdAt: Number(row.created_at),
    createdBy: row.created_by,
    doneAt: row.done_at === null ? null : Number(row.done_at),
  };
}

/** Why a schedule failed: the first of its ids that is no longer a record of the workspace. */
export function goneIdError(id: string): string {
  return `ids: record ${id} no longer exists; nothing was changed`;
}
