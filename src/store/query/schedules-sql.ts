// The statements of schedules (docs/lifecycle.md), the same on both databases; each takes the placeholders of its
// values (`?` on SQLite, `$n` on PostgreSQL).

/** A schedule's columns as read, with its author's email in place of the user id. */
export const SCHEDULE_COLUMNS = `s.id, s.workspace_id, s.action, s.at, s.ids, s.status, s.error, s.created_at,
  (SELECT email FROM users u WHERE u.id = s.created_by) AS created_by, s.done_at`;

export function insertSchedule(values: string[]): string {
  return `INSERT INTO schedules (id, workspace_id, action, at, ids, created_at, created_by) VALUES (${values.join(', ')})`;
}

export function selectSchedule(workspaceId: string, id: string): string {
  return `SELECT ${SCHEDULE_COLUMNS} FROM schedules s WHERE s.workspace_id = ${workspaceId} AND s.id = ${id}`;
}

/** `status`: a placeholder whose value is the status, or NULL for every status. */
export function listSchedules(workspaceId: string, status: string, limit: string, offset: string): string {
  return `SELECT ${SCHEDULE_COLUMNS} FROM schedules s
    WHERE s.workspace_id = ${workspaceId} AND (${status} IS NULL OR s.status = ${status})
    ORDER BY s.at, s.id LIMIT ${limit} OFFSET ${offset}`;
}

export function countSchedules(workspaceId: string, status: string): string {
  return `SELECT count(*) AS n FROM schedules s WHERE s.workspace_id = ${workspaceId} AND (${status} IS NULL OR s.status = ${status})`;
}

export function cancelSchedule(at: string, workspaceId: string, id: string): string {
  return `UPDATE schedules SET status = 'cancelled', done_at = ${at}
    WHERE workspace_id = ${workspaceId} AND id = ${id} AND status = 'pending'`;
}

/** The pending schedules due at a time, the earliest first. */
export function dueSchedules(now: string, limit: number): string {
  return `SELECT s.id, s.workspace_id, s.action, s.at, s.ids FROM schedules s
    WHERE s.status = 'pending' AND s.at <= ${now} ORDER BY s.at, s.id LIMIT ${limit}`;
}

export function finishSchedule(status: string, error: string, at: string, id: string): string {
  return `UPDATE schedules SET status = ${status}, error = ${error}, done_at = ${at} WHERE id = ${id} AND status = 'pending'`;
}
