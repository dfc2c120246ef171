// The Schedules page's views, built from its state (schedules-state.ts): a schedule's status badge, the table of
// schedules (when, action, records, status with the error of a failed one, who made it, Cancel) and its pager.
import { h, listTable } from './dom.js';
import { focusKey } from './focus-return.js';
import {
  recordsCell,
  scheduleActionText,
  schedulesPager,
  scheduleStatusText,
  type NamedRecord,
  type Schedule,
  type ScheduleList,
} from './schedules-state.js';
import { button, linkButton } from './ui.js';
import { formatDateTime } from './values.js';

export function scheduleBadge(status: string): HTMLElement {
  return h('span', { class: `status schedule-status schedule-status-${status}` }, scheduleStatusText(status));
}

function recordsList(schedule: Schedule, named: ReadonlyMap<string, NamedRecord | null>): HTMLElement {
  const cell = recordsCell(schedule.ids, named);
  const items = cell.shown.map((record) =>
    h(
      'li',
      null,
      record.href ? h('a', { href: record.href }, record.name) : h('span', { class: 'muted' }, `${record.id} (gone)`),
    ),
  );
  if (cell.more > 0 && items.length > 0) items.push(h('li', { class: 'muted' }, `and ${cell.more.toLocaleString()} more`));
  return h(
    'td',
    { class: 'schedule-records' },
    h('span', { class: 'schedule-count' }, cell.count),
    items.length > 0 ? h('ul', { class: 'plain-list small' }, items) : null,
  );
}

function statusCell(schedule: Schedule): HTMLElement {
  const when = schedule.doneAt ? formatDateTime(schedule.doneAt, { seconds: true }) : '';
  return h(
    'td',
    { class: 'schedule-state' },
    scheduleBadge(schedule.status),
    when && schedule.status !== 'pending' ? h('div', { class: 'small muted' }, when) : null,
    schedule.error ? h('div', { class: 'schedule-error field-error' }, schedule.error) : null,
  );
}

export interface ScheduleTableOptions {
  named: ReadonlyMap<string, NamedRecord | null>;
  /** Whether a schedule gets a Cancel button (writers, pending schedules). */
  cancellable: (schedule: Schedule) => boolean;
  onCancel: (schedule: Schedule) => void;
}

function scheduleRow(schedule: Schedule, options: ScheduleTableOptions): HTMLElement {
  const action = scheduleActionText(schedule.action);
  return h(
    'tr',
    { class: `schedule schedule-${schedule.status}`, 'data-schedule-id': schedule.id },
    h('th', { scope: 'row' }, formatDateTime(schedule.at, { seconds: true })),
    h('td', null, action),
    recordsList(schedule, options.named),
    statusCell(schedule),
    h(
      'td',
      null,
      schedule.createdBy ?? h('span', { class: 'muted' }, 'an API token'),
      h('div', { class: 'small muted' }, formatDateTime(schedule.createdAt)),
    ),
    h(
      'td',
      { class: 'actions' },
      options.cancellable(schedule)
        ? focusKey(
            button('Cancel', () => options.onCancel(schedule), {
              'aria-label': `Cancel the ${action.toLowerCase()} at ${formatDateTime(schedule.at, { seconds: true })}`,
            }),
            `cancel-${schedule.id}`,
          )
        : null,
    ),
  );
}

export function scheduleTable(list: ScheduleList, options: ScheduleTableOptions): HTMLElement {
  return listTable(
    'table schedules',
    'Schedules, by time',
    ['When', 'Action', 'Records', 'Status', 'Made by'],
    list.items.map((schedule) => scheduleRow(schedule, options)),
    { actions: true },
  );
}

export function schedulePager(list: ScheduleList, offset: number, hrefFor: (next: { offset: number }) => string) {
  const pager = schedulesPager(list, offset);
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Schedule pages' },
    h('p', { class: 'pager-status' }, pager.status),
    h(
      'div',
      { class: 'pager-controls' },
      pager.previousOffset !== null
        ? linkButton('Previous page', hrefFor({ offset: pager.previousOffset }), { rel: 'prev' })
        : h('span', { class: 'button', 'aria-disabled': 'true' }, 'Previous page'),
      pager.nextOffset !== null
        ? linkButton('Next page', hrefFor({ offset: pager.nextOffset }), { rel: 'next' })
        : h('span', { class: 'button', 'aria-disabled': 'true' }, 'Next page'),
    ),
  );
}
