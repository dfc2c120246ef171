// Schedules (docs/lifecycle.md): publish or unpublish many records together at a set time. The checks are made
// when the schedule is made; a running serve carries it out (schedule-runner.ts).
import { SCHEDULE_STATUSES } from '../shared/lifecycle.js';
import { checkSchedule } from '../domain/drafts.js';
import { ServiceError } from '../domain/errors.js';
import { pageBounds } from '../domain/listing.js';
import { newId } from '../ids.js';
import type { ScheduleStatus, Store, StoredSchedule } from '../store/store.js';
import type { Actor } from './actor.js';

export type { StoredSchedule };

export interface ScheduleList {
  total: number;
  hasMore: boolean;
  items: StoredSchedule[];
}

export class ScheduleService {
  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
  ) {}

  async schedule(actor: Actor, input: { ids: string[]; action: string; at: string }): Promise<StoredSchedule> {
    const checked = checkSchedule(input, this.now());
    const found = await this.store.records.getMany(actor.workspaceId, checked.ids);
    const existing = new Set((found as { id: string }[]).map((record) => record.id));
    const missing = checked.ids.findIndex((id) => !existing.has(id));
    if (missing !== -1) {
      const position = input.ids.indexOf(checked.ids[missing]!);
      throw new ServiceError('BAD_USER_INPUT', `input.ids.${position}: record ${checked.ids[missing]} not found`, {
        field: `input.ids.${position}`,
      });
    }
    return this.store.schedules.create({
      id: newId(),
      workspaceId: actor.workspaceId,
      action: checked.action,
      at: checked.at,
      ids: checked.ids,
      createdAt: this.now(),
      userId: actor.userId,
    });
  }

  async cancel(actor: Actor, id: string): Promise<StoredSchedule> {
    const outcome = await this.store.schedules.cancel(actor.workspaceId, id, this.now());
    if (outcome === null) throw new ServiceError('NOT_FOUND', 'id: schedule not found', { field: 'id' });
    if (outcome === 'not-pending') {
      const schedule = await this.store.schedules.get(actor.workspaceId, id);
      throw new ServiceError(
        'CONFLICT',
        `id: the schedule is ${schedule?.status ?? 'gone'}; only a pending schedule can be cancelled`,
        {
          field: 'id',
        },
      );
    }
    return outcome;
  }

  async list(
    workspaceId: string,
    args: { status?: string | null; limit?: number | null; offset?: number | null },
  ): Promise<ScheduleList> {
    const status = args.status ?? null;
    if (status !== null && !SCHEDULE_STATUSES.includes(status as ScheduleStatus)) {
      throw new ServiceError('BAD_USER_INPUT', `status: expected pending, done, failed or cancelled, got "${status}"`, {
        field: 'status',
      });
    }
    const { limit, offset } = pageBounds(args);
    const { total, items } = await this.store.schedules.list(workspaceId, status, limit, offset);
    return { total, hasMore: offset + items.length < total, items };
  }
}
