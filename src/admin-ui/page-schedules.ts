// Schedules: the workspace's publishes and unpublishes set for a time (docs/lifecycle.md "Schedules"), by time,
// filtered by status and paged by the server; each with its records (the first few by name, linked to their forms),
// its status (the error of a failed one) and who made it. Writers cancel a pending one, after a confirmation. A
// schedule is made from a record's form or the records table (schedule-form.ts).
// The page's state is schedules-state.ts, its calls schedules-api.ts, its views schedules-views.ts.
import { ApiError } from './api.js';
import { h, replaceChildren } from './dom.js';
import { focusKey, returnFocusTo } from './focus-return.js';
import type { PageContext } from './page.js';
import { cancelScheduleCall, loadRecordNames, loadSchedules } from './schedules-api.js';
import {
  cancelQuestion,
  emptySchedulesText,
  idsToName,
  mayCancel,
  parseSchedulesView,
  pastEndOffset,
  scheduleActionText,
  scheduleFilterOptions,
  schedulesHref,
  recordCountText,
  type Schedule,
  type SchedulesView,
} from './schedules-state.js';
import { schedulePager, scheduleTable } from './schedules-views.js';
import { mayWriteRecords } from './types.js';
import { announce, button, confirmDialog, errorArea, pageHeader, type ErrorArea } from './ui.js';
import { formatDateTime } from './values.js';

interface SchedulesPage {
  ctx: PageContext;
  view: SchedulesView;
  canWrite: boolean;
  errors: ErrorArea;
  hrefFor: (next: { status?: string | null; offset?: number }) => string;
}

function statusSelect(page: SchedulesPage): HTMLElement {
  const select = focusKey(
    h(
      'select',
      {
        id: 'schedules-status',
        onchange: () => {
          returnFocusTo('schedules-status');
          page.ctx.navigate(page.hrefFor({ status: select.value || null, offset: 0 }));
        },
      },
      scheduleFilterOptions().map((option) => h('option', { value: option.value }, option.label)),
    ),
    'schedules-status',
  ) as HTMLSelectElement;
  select.value = page.view.status ?? '';
  return select;
}

async function cancelSchedule(page: SchedulesPage, schedule: Schedule, reload: () => Promise<void>): Promise<void> {
  const { ctx, errors } = page;
  errors.clear();
  const question = cancelQuestion(schedule, formatDateTime(schedule.at, { seconds: true }));
  const confirmed = await confirmDialog({
    title: question.title,
    message: h('p', null, question.message),
    confirmLabel: 'Cancel schedule',
    danger: true,
  });
  if (!confirmed) return;
  try {
    await cancelScheduleCall(schedule.id);
    if (!ctx.isCurrent()) return;
    ctx.flash(
      `The ${scheduleActionText(schedule.action).toLowerCase()} of ${recordCountText(schedule.ids.length)} was cancelled.`,
    );
    ctx.navigate(location.hash);
  } catch (error) {
    errors.show(error, 'The schedule was not cancelled.');
    // It may have been carried out or cancelled meanwhile: the list shows it as it is.
    if (error instanceof ApiError && (error.code === 'CONFLICT' || error.code === 'NOT_FOUND')) await reload().catch(() => {});
  }
}

/** The list's area and pager, and a read of them; false when the page is past the end (and gave way to the last). */
function scheduleList(page: SchedulesPage) {
  const listArea = h('div', { class: 'schedule-list' });
  const pagerArea = h('div');
  const load = async (): Promise<boolean> => {
    const list = await loadSchedules(page.view);
    if (!page.ctx.isCurrent()) return true;
    const lastPage = pastEndOffset(list, page.view.offset);
    if (lastPage !== null) {
      page.ctx.redirect(page.hrefFor({ offset: lastPage }));
      return false;
    }
    const named = await loadRecordNames(idsToName(list.items));
    if (!page.ctx.isCurrent()) return true;
    listArea.replaceChildren(
      list.items.length === 0
        ? h('p', { class: 'empty' }, emptySchedulesText(page.view.status))
        : scheduleTable(list, {
            named,
            cancellable: (schedule) => mayCancel(schedule, page.canWrite),
            onCancel: (schedule) => void cancelSchedule(page, schedule, () => load().then(() => undefined)),
          }),
    );
    pagerArea.replaceChildren(list.total > 0 ? schedulePager(list, page.view.offset, page.hrefFor) : '');
    return true;
  };
  return { listArea, pagerArea, load };
}

export async function renderSchedules(ctx: PageContext): Promise<void> {
  ctx.setTitle('Schedules');
  const view = parseSchedulesView(ctx.query);
  const page: SchedulesPage = {
    ctx,
    view,
    canWrite: mayWriteRecords(ctx.workspace.role),
    errors: errorArea(),
    hrefFor: (next) => schedulesHref(view, next),
  };
  const list = scheduleList(page);
  if (!(await list.load()) || !ctx.isCurrent()) return;
  const refresh = button('Refresh', async () => {
    page.errors.clear();
    try {
      await list.load();
      announce('Schedules read again.');
    } catch (error) {
      page.errors.show(error, 'The schedules could not be read.');
    }
  });
  replaceChildren(
    ctx.main,
    pageHeader('Schedules'),
    h(
      'p',
      { class: 'muted' },
      'Publishes and unpublishes set for a time, by time. At its time a schedule acts on all its records at once, as they are then, or, when one of them is gone, on none. Schedule one from a record or from the records table of a model with drafts.',
    ),
    page.errors.element,
    h(
      'div',
      { class: 'filter-bar schedules-filter' },
      h('label', { for: 'schedules-status' }, 'Status'),
      statusSelect(page),
      refresh,
    ),
    list.listArea,
    list.pagerArea,
  );
}
