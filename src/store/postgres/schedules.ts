// Schedules on PostgreSQL (docs/lifecycle.md). A due schedule is taken FOR UPDATE SKIP LOCKED in the transaction
// that carries it out: with several server processes on one database, each schedule is done by exactly one of them,
// all of it or (a process killed half way) none of it, and then by the next process that looks.
import type { Pool } from 'pg';
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
import type { PostgresPublishing } from './publishing.js';
import { writingRecords } from './record-writes.js';
import type { PostgresOutbox } from './webhook-outbox.js';
import { schedulePayload } from '../../domain/webhook-events.js';

/** Schedules carried out per pass at most. */
const DUE_BATCH = 20;

export class PostgresScheduleStore implements ScheduleStore {
  constructor(
    private readonly pool: Pool,
    private readonly publishing: PostgresPublishing,
    private readonly outbox: PostgresOutbox,
  ) {}

  async create(schedule: NewSchedule): Promise<StoredSchedule> {
    const { id, workspaceId, action, at, ids, createdAt, userId } = schedule;
    await this.pool.query(insertSchedule(['$1', '$2', '$3', '$4', '$5::jsonb', '$6', '$7']), [
      id,
      workspaceId,
      action,
      at,
      JSON.stringify(ids),
      createdAt,
      userId,
    ]);
    return (await this.get(workspaceId, id))!;
  }

  async get(workspaceId: string, id: string): Promise<StoredSchedule | null> {
    const { rows } = await this.pool.query<ScheduleRow>(selectSchedule('$1', '$2'), [workspaceId, id]);
    return rows[0] ? toSchedule(rows[0]) : null;
  }

  async list(workspaceId: string, status: string | null, limit: number, offset: number) {
    const [page, count] = await Promise.all([
      this.pool.query<ScheduleRow>(listSchedules('$1', '$2::text', '$3', '$4'), [workspaceId, status, limit, offset]),
      this.pool.query<{ n: string }>(countSchedules('$1', '$2::text'), [workspaceId, status]),
    ]);
    return { total: Number(count.rows[0]!.n), items: page.rows.map(toSchedule) };
  }

  async cancel(workspaceId: string, id: string, now: number): Promise<StoredSchedule | 'not-pending' | null> {
    const { rowCount } = await this.pool.query(cancelSchedule('$1', '$2', '$3'), [now, workspaceId, id]);
    const schedule = await this.get(workspaceId, id);
    if (!schedule) return null;
    return rowCount === 1 ? schedule : 'not-pending';
  }

  async runDue(now: number): Promise<StoredSchedule[]> {
    const ran: StoredSchedule[] = [];
    for (let taken = 0; taken < DUE_BATCH; taken++) {
      let wrote = false;
      let copies = 0;
      const done = await writingRecords(this.pool, async (client) => {
        const { rows } = await client.query<Pick<ScheduleRow, 'id' | 'workspace_id' | 'action' | 'at' | 'ids'>>(
          `${dueSchedules('$1', 1)} FOR UPDATE SKIP LOCKED`,
          [now],
        );
        const row = rows[0];
        if (!row) return null;
        const ids = row.ids as string[];
        const applied = await this.publishing.applyWith(client, row.workspace_id, ids, row.action as 'publish' | 'unpublish');
        ({ wrote, copies } = applied);
        const failed = 'missingAt' in applied.outcome;
        const error = 'missingAt' in applied.outcome ? goneIdError(ids[applied.outcome.missingAt]!) : null;
        if (error !== null) {
          const schedule = { id: row.id, action: row.action, at: Number(row.at), ids, error };
          const event = {
            workspaceId: row.workspace_id,
            type: 'schedule.failed' as const,
            modelId: null,
            modelSlug: null,
            at: Date.now(),
            payload: () => schedulePayload(schedule),
          };
          if (await this.outbox.add(client, event, await this.outbox.subscriptions(client, row.workspace_id))) wrote = true;
        }
        await client.query(finishSchedule('$1', '$2', '$3', '$4'), [failed ? 'failed' : 'done', error, Date.now(), row.id]);
        return { workspaceId: row.workspace_id, id: row.id };
      });
      this.outbox.committed(wrote);
      this.publishing.copiesMade(copies);
      if (!done) break;
      ran.push((await this.get(done.workspaceId, done.id))!);
    }
    return ran;
  }
}
