// Schedules (docs/lifecycle.md): publish or unpublish records together at a set time. A base class of ContentClient,
// so that `client.scheduleRecords(…)` is a method of the client while its code lives here, beside its types; it
// needs only the client's `request`, so nothing here imports client.ts.
import { ContentServiceError } from './errors.js';
import type { Schedule, ScheduleAction, ScheduleList, ScheduleStatus } from '../shared/lifecycle.js';

export type { Schedule, ScheduleAction, ScheduleList, ScheduleStatus };

export interface ScheduleRecordsInput {
  /** 1 to 1000 record ids, of any models; each must exist when the schedule is made. */
  ids: readonly string[];
  action: ScheduleAction;
  /** In the future, at most 5 years ahead: a Date, or an ISO 8601 string with its offset (`2026-05-01T09:00:00Z`). */
  at: Date | string;
}

export interface ListSchedulesOptions {
  /** Only the schedules in this state. */
  status?: ScheduleStatus;
  /** At most 100 (default 20). */
  limit?: number;
  offset?: number;
  signal?: AbortSignal;
}

const SCHEDULE_FIELDS = 'id action at ids status error createdAt createdBy doneAt';

/** The schedule calls of the SDK; ContentClient extends it. */
export abstract class ScheduleCalls {
  /** ContentClient's: any GraphQL request of the admin API. */
  abstract request<T = unknown>(
    query: string,
    variables?: Record<string, unknown>,
    options?: { write?: boolean; signal?: AbortSignal; operation?: string },
  ): Promise<T>;

  /**
   * Publishes or unpublishes the records together at `at`, on their working copies as they are then: a running
   * server carries it out within about a second of `at`, all ids in one transaction. Answers the pending schedule.
   * Refused with BAD_USER_INPUT naming the input field as the admin API does: `input.action`, `input.at` (in the
   * past, more than 5 years ahead, not a date-time), `input.ids.<position>` (an unknown id). If an id is gone by
   * `at`, the schedule ends `failed` with `error` naming it and none of its records changes.
   */
  async scheduleRecords(input: ScheduleRecordsInput, signal?: AbortSignal): Promise<Schedule> {
    const at = typeof input.at === 'string' ? input.at : isoOf(input.at);
    const query = `mutation($input: ScheduleInput!) { record { schedule(input: $input) { ${SCHEDULE_FIELDS} } } }`;
    const variables = { input: { ids: [...input.ids], action: input.action, at } };
    const answer = await this.request<{ record: { schedule: Schedule } }>(query, variables, {
      write: true,
      operation: 'scheduleRecords',
      ...(signal ? { signal } : {}),
    });
    return answer.record.schedule;
  }

  /** Cancels a pending schedule and answers it (`cancelled`); CONFLICT once it is done, failed or cancelled. */
  async cancelSchedule(id: string, signal?: AbortSignal): Promise<Schedule> {
    const query = `mutation($id: ID!) { record { cancelSchedule(id: $id) { ${SCHEDULE_FIELDS} } } }`;
    const answer = await this.request<{ record: { cancelSchedule: Schedule } }>(
      query,
      { id },
      {
        write: true,
        operation: 'cancelSchedule',
        ...(signal ? { signal } : {}),
      },
    );
    return answer.record.cancelSchedule;
  }

  /** One page of the workspace's schedules, by time, optionally of one status. */
  async listSchedules(options: ListSchedulesOptions = {}): Promise<ScheduleList> {
    const { signal, status, limit, offset } = options;
    const query = `query($status: String, $limit: Int, $offset: Int) { record { schedules(status: $status, limit: $limit,
      offset: $offset) { total hasMore items { ${SCHEDULE_FIELDS} } } } }`;
    const variables = { status: status ?? null, limit: limit ?? null, offset: offset ?? null };
    const answer = await this.request<{ record: { schedules: ScheduleList } }>(query, variables, {
      operation: 'listSchedules',
      ...(signal ? { signal } : {}),
    });
    return answer.record.schedules;
  }
}

/** A Date as the API's DateTime; an invalid Date is refused here, naming the field as the server would. */
function isoOf(date: Date): string {
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
    throw new ContentServiceError('input.at: expected a valid Date or an ISO 8601 date-time string', {
      code: 'BAD_USER_INPUT',
      field: 'input.at',
    });
  }
  return date.toISOString();
}
