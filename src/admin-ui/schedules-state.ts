// Schedules in the admin application, without a DOM (docs/lifecycle.md "Schedules"): the Schedules page's status
// filter and page as the URL carries them, the texts of a schedule's row and of the pager, which ids of a page are
// looked up for their names, the datetime-local value of the Schedule form (the browser's local time) and the ISO
// time in UTC it is sent as, and the texts after a schedule is made. page-schedules.ts renders the page,
// schedule-form.ts the Schedule form, schedules-api.ts sends them.

import {
  SCHEDULE_ACTIONS,
  SCHEDULE_STATUSES,
  type Schedule,
  type ScheduleAction,
  type ScheduleList,
  type ScheduleStatus,
} from '../shared/lifecycle.js';

export { SCHEDULE_ACTIONS, SCHEDULE_STATUSES, type Schedule, type ScheduleAction, type ScheduleList, type ScheduleStatus };

/** Schedules on a page of the Schedules page. */
export const SCHEDULES_PAGE_SIZE = 20;
/** Ids of one schedule looked up for their names; the rest are counted. */
export const NAMED_PER_SCHEDULE = 3;
/** The most ids one look-up takes (record.getMany). */
export const MAX_NAMED_IDS = 100;

const STATUS_TEXT: Record<ScheduleStatus, string> = {
  pending: 'Pending',
  done: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

const ACTION_TEXT: Record<ScheduleAction, string> = { publish: 'Publish', unpublish: 'Unpublish' };

export function isScheduleStatus(value: unknown): value is ScheduleStatus {
  return typeof value === 'string' && (SCHEDULE_STATUSES as readonly string[]).includes(value);
}

/** A schedule's status for people (the badge); one this version does not know, as the server names it. */
export function scheduleStatusText(status: string): string {
  return isScheduleStatus(status) ? STATUS_TEXT[status] : status;
}

/** A schedule's action for people; one this version does not know, as the server names it. */
export function scheduleActionText(action: string): string {
  return action === 'publish' || action === 'unpublish' ? ACTION_TEXT[action] : action;
}

/** The options of the status filter: all schedules, then one per status. */
export function scheduleFilterOptions(): { value: string; label: string }[] {
  return [{ value: '', label: 'All' }, ...SCHEDULE_STATUSES.map((value) => ({ value, label: STATUS_TEXT[value] }))];
}

/** The Schedules page's view: the status filter (null for all) and the offset. */
export interface SchedulesView {
  status: ScheduleStatus | null;
  offset: number;
}

export function parseSchedulesView(query: URLSearchParams): SchedulesView {
  const status = query.get('status');
  return {
    status: isScheduleStatus(status) ? status : null,
    offset: Math.max(0, Math.floor(Number(query.get('offset'))) || 0),
  };
}

export const SCHEDULES_PATH = '#/schedules';

/** The address of the Schedules page with `next` applied to `view` (`status: null` shows all). */
export function schedulesHref(
  view: SchedulesView = { status: null, offset: 0 },
  next: { status?: string | null; offset?: number } = {},
): string {
  const query = new URLSearchParams();
  const status = next.status === undefined ? view.status : next.status;
  if (status) query.set('status', status);
  const offset = next.offset ?? view.offset;
  if (offset > 0) query.set('offset', String(offset));
  const text = query.toString();
  return `${SCHEDULES_PATH}${text ? `?${text}` : ''}`;
}

/** What the page says when there is no schedule (with the status it filters by). */
export function emptySchedulesText(status: ScheduleStatus | null): string {
  return status ? `No ${status} schedules.` : 'No schedules yet. Schedule a publish from a record or the records table.';
}

/** An offset past the last page (its schedules cancelled elsewhere, a hand-made address): the last page's offset. */
export function pastEndOffset(list: ScheduleList, offset: number, size = SCHEDULES_PAGE_SIZE): number | null {
  if (offset === 0 || list.items.length > 0) return null;
  return list.total === 0 ? 0 : Math.floor((list.total - 1) / size) * size;
}

/** The pager's status and where its two links go (null: that way there is nothing). */
export function schedulesPager(list: ScheduleList, offset: number, size = SCHEDULES_PAGE_SIZE) {
  const first = list.total === 0 ? 0 : offset + 1;
  const last = offset + list.items.length;
  return {
    status:
      list.total === 0
        ? 'No schedules'
        : `Schedules ${first.toLocaleString()}–${last.toLocaleString()} of ${list.total.toLocaleString()}`,
    previousOffset: offset > 0 ? Math.max(0, offset - size) : null,
    nextOffset: list.hasMore ? offset + size : null,
  };
}

export function recordCountText(count: number): string {
  return `${count.toLocaleString()} ${count === 1 ? 'record' : 'records'}`;
}

/** The ids of a page's schedules that are looked up for their names: the first few of each, at most `max`. */
export function idsToName(
  schedules: readonly Pick<Schedule, 'ids'>[],
  perSchedule = NAMED_PER_SCHEDULE,
  max = MAX_NAMED_IDS,
): string[] {
  const wanted = new Set<string>();
  for (const schedule of schedules) {
    for (const id of schedule.ids.slice(0, perSchedule)) {
      if (wanted.size >= max) return [...wanted];
      wanted.add(id);
    }
  }
  return [...wanted];
}

/** A record as the row names it: its name and where its form is; null when it is gone (or was not looked up). */
export interface NamedRecord {
  name: string;
  href: string;
}

/** A schedule's records as its row lists them: the named ones first, then how many more. */
export function recordsCell(
  ids: readonly string[],
  named: ReadonlyMap<string, NamedRecord | null>,
  perSchedule = NAMED_PER_SCHEDULE,
): { count: string; shown: ({ id: string } & (NamedRecord | { name: null; href: null }))[]; more: number } {
  const shown = ids
    .slice(0, perSchedule)
    .filter((id) => named.has(id))
    .map((id) => {
      const record = named.get(id);
      return record ? { id, ...record } : { id, name: null, href: null };
    });
  return { count: recordCountText(ids.length), shown, more: ids.length - shown.length };
}

/** Who may cancel: a writer, and only a pending schedule. */
export function mayCancel(schedule: Pick<Schedule, 'status'>, canWrite: boolean): boolean {
  return canWrite && schedule.status === 'pending';
}

/** The confirmation's texts for cancelling a schedule. */
export function cancelQuestion(schedule: Pick<Schedule, 'action' | 'ids'>, when: string): { title: string; message: string } {
  return {
    title: `Cancel the ${scheduleActionText(schedule.action).toLowerCase()} of ${recordCountText(schedule.ids.length)}?`,
    message: `It was to happen ${when}. The records stay as they are; a cancelled schedule cannot be resumed.`,
  };
}

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

/** A time as a datetime-local input shows it, in the browser's local time, to the second. */
export function toLocalInputValue(date: Date): string {
  return (
    `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

/** The Schedule form's first time: the next full hour after an hour from now. */
export function defaultScheduleTime(now: Date = new Date()): Date {
  const at = new Date(now.getTime() + 60 * 60 * 1000);
  at.setMinutes(0, 0, 0);
  return new Date(at.getTime() + 60 * 60 * 1000);
}

/**
 * A datetime-local value (`2025-03-01T09:30` or with seconds), read as the browser's local time, as the ISO time in
 * UTC the API takes; null when it is not such a value (empty, malformed, a day that does not exist).
 */
export function localInputToIso(value: string): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/.exec(value.trim());
  if (!match) return null;
  const part = (index: number) => Number(match[index] ?? 0);
  const [year, month, day] = [part(1), part(2), part(3)];
  const millis = Number((match[7] ?? '0').padEnd(3, '0'));
  const date = new Date(year, month - 1, day, part(4), part(5), part(6), millis);
  if (Number.isNaN(date.getTime()) || date.getMonth() !== month - 1 || date.getDate() !== day) return null;
  return date.toISOString();
}

/** The Schedule form's problem with a value it cannot send (the server judges the rest: past, too far ahead). */
export function scheduleInputProblem(value: string): string | null {
  if (value.trim() === '') return 'Choose a date and time.';
  return localInputToIso(value) === null ? 'Enter a date and time, as in 2025-03-01 09:30.' : null;
}

/** The labels of the Schedule buttons, the form's time field and its submit button. */
export function scheduleLabels(action: ScheduleAction): { open: string; field: string; submit: string } {
  return {
    open: `Schedule ${action}…`,
    field: `${ACTION_TEXT[action]} at`,
    submit: `Schedule ${action}`,
  };
}

/** The message after a schedule is made: what, of how many records, when. */
export function scheduledText(schedule: Pick<Schedule, 'action' | 'ids'>, when: string, subject?: string): string {
  const what = subject ?? recordCountText(schedule.ids.length);
  return `${scheduleActionText(schedule.action)} of ${what} scheduled for ${when}.`;
}

/** The time zone the form's times are in, for its hint (`Europe/Warsaw`); '' when the browser does not say. */
export function timeZoneHint(zone: string | undefined): string {
  return zone ? `In your local time (${zone}).` : 'In your local time.';
}
