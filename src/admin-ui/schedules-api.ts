// The calls of schedules (docs/lifecycle.md "Schedules"): the workspace's schedules by time, filtered by status and
// paged; the names of (a few of) their records; making a schedule and cancelling a pending one.
import { gql } from './api.js';
import { listModels } from './models-cache.js';
import { recordName } from './record-names.js';
import { recordFormHref } from './records-view.js';
import {
  SCHEDULES_PAGE_SIZE,
  type NamedRecord,
  type Schedule,
  type ScheduleAction,
  type ScheduleList,
  type SchedulesView,
} from './schedules-state.js';
import type { ModelRecord } from './types.js';

const SCHEDULE_FIELDS = 'id action at ids status error createdAt createdBy doneAt';

export async function loadSchedules(view: SchedulesView): Promise<ScheduleList> {
  const data = await gql<{ record: { schedules: ScheduleList } }>(
    `query AdminSchedules($status: String, $limit: Int, $offset: Int) {
        record { schedules(status: $status, limit: $limit, offset: $offset) { total hasMore items { ${SCHEDULE_FIELDS} } } }
      }`,
    { status: view.status, limit: SCHEDULES_PAGE_SIZE, offset: view.offset },
  );
  return data.record.schedules;
}

/**
 * The names of records (at most 100 ids, one call) and the addresses of their forms; null for a record that is gone.
 * A failed look-up names none: the rows then only count their records.
 */
export async function loadRecordNames(ids: readonly string[]): Promise<Map<string, NamedRecord | null>> {
  const named = new Map<string, NamedRecord | null>();
  if (ids.length === 0) return named;
  try {
    const [data, models] = await Promise.all([
      gql<{ record: { getMany: ((ModelRecord & { modelId: string }) | null)[] } }>(
        'query AdminScheduleRecords($ids: [ID!]!) { record { getMany(ids: $ids) { id modelId data createdAt updatedAt } } }',
        { ids },
      ),
      listModels(),
    ]);
    ids.forEach((id, index) => {
      const record = data.record.getMany[index];
      const model = record ? models.find((candidate) => candidate.id === record.modelId) : undefined;
      named.set(
        id,
        record && model
          ? { name: recordName(model, record), href: recordFormHref(model.id, record.id, new URLSearchParams()) }
          : null,
      );
    });
  } catch {
    named.clear();
  }
  return named;
}

export async function scheduleCall(action: ScheduleAction, ids: readonly string[], at: string): Promise<Schedule> {
  const data = await gql<{ record: { schedule: Schedule } }>(
    `mutation ScheduleRecords($input: ScheduleInput!) { record { schedule(input: $input) { ${SCHEDULE_FIELDS} } } }`,
    { input: { ids, action, at } },
  );
  return data.record.schedule;
}

export async function cancelScheduleCall(id: string): Promise<Schedule> {
  const data = await gql<{ record: { cancelSchedule: Schedule } }>(
    `mutation CancelSchedule($id: ID!) { record { cancelSchedule(id: $id) { ${SCHEDULE_FIELDS} } } }`,
    { id },
  );
  return data.record.cancelSchedule;
}
