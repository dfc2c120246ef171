// Schedules on SQLite (docs/lifecycle.md). A due schedule is carried out in one write of the write group with its
// publish or unpublish: the group's transaction holds the database's write lock, so a process on the same file
// finds it no longer pending.
import type Database from 'better-sqlite3';
import type { NewSchedule, ScheduleStore, StoredSchedule } from '../contract/schedules.js';
import { goneIdError, toSchedule, type ScheduleRow } from '../rows/schedule-rows.js';
import {
  cancelSchedule,
  countSchedules,
  dueSchedules,
  finishSchedule,
  insertSchedule,
  listSchedules,
  selectSchedule,
} from '../query/schedules-sql.js';
import type { SqlitePublishing } from './publishing.js';
import type { WriteGroup } from './write-group.js';
import type { SqliteOutbox } from './webhook-outbox.js';
import { schedulePayload } from '../../domain/webhook-events.js';

/** Schedules carried out per pass at most. */
const DUE_BATCH = 20;

export class SqliteScheduleStore implements ScheduleStore {
  private readonly insert: Database.Statement;
  private readonly select: Database.Statement;
  private readonly page: Database.Statement;
  private readonly count: Database.Statement;
  private readonly cancelPending: Database.Statement;
  private readonly due: Database.Statement;
  private readonly finish: Database.Statement;

  constructor(
    db: Database.Database,
    private readonly writes: WriteGroup,
    private readonly publishing: SqlitePublishing,
    private readonly outbox: SqliteOutbox,
  ) {
    this.insert = db.prepare(insertSchedule(Array.from({ length: 7 }, () => '?')));
    this.select = db.prepare(selectSchedule('?', '?'));
    this.page = db.prepare(listSchedules('@workspace', '@status', '@limit', '@offset'));
    this.count = db.prepare(countSchedules('@workspace', '@status')).pluck(true);
    this.cancelPending = db.prepare(cancelSchedule('?', '?', '?'));
    this.due = db.prepare(dueSchedules('?', DUE_BATCH));
    this.finish = db.prepare(finishSchedule('?', '?', '?', '?'));
  }

  async create(schedule: NewSchedule): Promise<StoredSchedule> {
    const { id, workspaceId, action, at, ids, createdAt, userId } = schedule;
    await this.writes.run(() => this.insert.run(id, workspaceId, action, at, JSON.stringify(ids), createdAt, userId));
    return (await this.get(workspaceId, id))!;
  }

  async get(workspaceId: string, id: string): Promise<StoredSchedule | null> {
    const row = this.select.get(workspaceId, id) as ScheduleRow | undefined;
    return row ? toSchedule(row) : null;
  }

  async list(workspaceId: string, status: string | null, limit: number, offset: number) {
    const values = { workspace: workspaceId, status, limit, offset };
    const items = (this.page.all(values) as ScheduleRow[]).map(toSchedule);
    return { total: this.count.get({ workspace: workspaceId, status }) as number, items };
  }

  async cancel(workspaceId: string, id: string, now: number): Promise<StoredSchedule | 'not-pending' | null> {
    const changed = await this.writes.run(() => this.cancelPending.run(now, workspaceId, id).changes);
    const schedule = await this.get(workspaceId, id);
    if (!schedule) return null;
    return changed === 1 ? schedule : 'not-pending';
  }

  private failedEvent(row: Pick<ScheduleRow, 'id' | 'workspace_id' | 'action' | 'at'>, ids: string[], error: string): void {
    const schedule = { id: row.id, action: row.action, at: Number(row.at), ids, error };
    this.outbox.add({
      workspaceId: row.workspace_id,
      type: 'schedule.failed',
      modelId: null,
      at: Date.now(),
      details: () => ({ modelSlug: null, payload: schedulePayload(schedule) }),
    });
  }

  async runDue(now: number): Promise<StoredSchedule[]> {
    const due = this.due.all(now) as Pick<ScheduleRow, 'id' | 'workspace_id' | 'action' | 'at' | 'ids'>[];
    const ran: StoredSchedule[] = [];
    for (const row of due) {
      const carried = await this.writes
        .run(() => {
          // Still pending inside the write: another process on the file, or a cancel, may have come first.
          const ids = JSON.parse(row.ids as string) as string[];
          const outcome = this.publishing.applyNow(row.workspace_id, ids, row.action as 'publish' | 'unpublish');
          const failed = 'missingAt' in outcome;
          if (failed) this.failedEvent(row, ids, goneIdError(ids[outcome.missingAt]!));
          const changes = this.finish.run(
            failed ? 'failed' : 'done',
            failed ? goneIdError(ids[outcome.missingAt]!) : null,
            Date.now(),
            row.id,
          ).changes;
          // Not pending any more: undo the change this write made (the write group rolls back a write that throws).
          if (changes === 0) throw new NotPending();
          return true;
        })
        .catch((error: unknown) => {
          if (error instanceof NotPending) return false;
          throw error;
        });
      if (carried) ran.push((await this.get(row.workspace_id, row.id))!);
    }
    return ran;
  }
}

class NotPending extends Error {}
