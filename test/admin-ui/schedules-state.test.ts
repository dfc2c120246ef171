// Schedules in the admin application without a DOM (src/admin-ui/schedules-state.ts): the badge and action texts, the
// Schedules page's status filter and page as the URL carries them, the pager, which ids are looked up for names and
// how a row lists its records, who may cancel, the datetime-local value in local time and the ISO time in UTC it is
// sent as, and the texts after a schedule is made.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  SCHEDULE_STATUSES,
  SCHEDULES_PAGE_SIZE,
  cancelQuestion,
  defaultScheduleTime,
  emptySchedulesText,
  idsToName,
  localInputToIso,
  mayCancel,
  parseSchedulesView,
  pastEndOffset,
  recordsCell,
  scheduleActionText,
  scheduleFilterOptions,
  scheduleInputProblem,
  scheduleLabels,
  scheduleStatusText,
  scheduledText,
  schedulesHref,
  schedulesPager,
  timeZoneHint,
  toLocalInputValue,
  type NamedRecord,
  type ScheduleList,
} from '../../src/admin-ui/schedules-state.js';

const list = (count: number, total: number, hasMore: boolean): ScheduleList => ({
  total,
  hasMore,
  items: Array.from({ length: count }, (_, index) => ({
    id: `s${index}`,
    action: 'publish',
    at: '2030-01-01T00:00:00.000Z',
    ids: ['r1'],
    status: 'pending',
    error: null,
    createdAt: '2029-12-31T00:00:00.000Z',
    createdBy: 'owner@acme.test',
    doneAt: null,
  })),
});

describe('schedules-state: statuses, the filter and the address', () => {
  test('each status and action has a text; unknown ones are shown as the server names them', () => {
    assert.deepEqual(
      SCHEDULE_STATUSES.map((status) => scheduleStatusText(status)),
      ['Pending', 'Done', 'Failed', 'Cancelled'],
    );
    assert.equal(scheduleStatusText('paused'), 'paused');
    assert.equal(scheduleActionText('publish'), 'Publish');
    assert.equal(scheduleActionText('unpublish'), 'Unpublish');
    assert.equal(scheduleActionText('archive'), 'archive');
  });

  test('the status filter offers all, then each status', () => {
    assert.deepEqual(
      scheduleFilterOptions().map((option) => option.value),
      ['', 'pending', 'done', 'failed', 'cancelled'],
    );
    assert.equal(scheduleFilterOptions()[0]!.label, 'All');
  });

  test('the view is read from the address: a known status, a whole non-negative offset', () => {
    assert.deepEqual(parseSchedulesView(new URLSearchParams('status=failed&offset=40')), { status: 'failed', offset: 40 });
    assert.deepEqual(parseSchedulesView(new URLSearchParams('status=bogus&offset=-5')), { status: null, offset: 0 });
    assert.deepEqual(parseSchedulesView(new URLSearchParams('offset=abc')), { status: null, offset: 0 });
    assert.deepEqual(parseSchedulesView(new URLSearchParams('offset=7.9')), { status: null, offset: 7 });
  });

  test('the address keeps the view and applies a change; all statuses and the first page leave no parameter', () => {
    const view = { status: 'pending' as const, offset: 20 };
    assert.equal(schedulesHref(), '#/schedules');
    assert.equal(schedulesHref(view), '#/schedules?status=pending&offset=20');
    assert.equal(schedulesHref(view, { offset: 0 }), '#/schedules?status=pending');
    assert.equal(schedulesHref(view, { status: null, offset: 0 }), '#/schedules');
    assert.equal(schedulesHref(view, { status: 'done' }), '#/schedules?status=done&offset=20');
  });

  test('the empty page says what it filters by', () => {
    assert.equal(emptySchedulesText('cancelled'), 'No cancelled schedules.');
    assert.match(emptySchedulesText(null), /^No schedules yet\./);
  });
});

describe('schedules-state: paging', () => {
  test('the pager counts the page in the total and links only where there is something', () => {
    assert.deepEqual(schedulesPager(list(20, 45, true), 0), {
      status: 'Schedules 1–20 of 45',
      previousOffset: null,
      nextOffset: 20,
    });
    assert.deepEqual(schedulesPager(list(5, 45, false), 40), {
      status: 'Schedules 41–45 of 45',
      previousOffset: 20,
      nextOffset: null,
    });
    assert.equal(schedulesPager(list(0, 0, false), 0).status, 'No schedules');
    assert.equal(schedulesPager(list(3, 3, false), 5).previousOffset, 0, 'never before the first');
  });

  test('a page past the end gives way to the last page; a page with schedules or the first page stays', () => {
    assert.equal(pastEndOffset(list(0, 45, false), 60), 40);
    assert.equal(pastEndOffset(list(0, 40, false), 60), SCHEDULES_PAGE_SIZE);
    assert.equal(pastEndOffset(list(0, 0, false), 20), 0);
    assert.equal(pastEndOffset(list(0, 0, false), 0), null);
    assert.equal(pastEndOffset(list(3, 23, false), 20), null);
  });
});

describe('schedules-state: the records of a row', () => {
  test('the first few ids of each schedule are looked up, once each, at most the limit', () => {
    const schedules = [{ ids: ['a', 'b', 'c', 'd'] }, { ids: ['b', 'e'] }, { ids: ['f'] }];
    assert.deepEqual(idsToName(schedules), ['a', 'b', 'c', 'e', 'f']);
    assert.deepEqual(idsToName(schedules, 1), ['a', 'b', 'f']);
    assert.deepEqual(idsToName(schedules, 3, 4), ['a', 'b', 'c', 'e']);
    assert.deepEqual(idsToName([]), []);
  });

  test('a row counts its records and lists the named ones (a gone one as gone), then how many more', () => {
    const named = new Map<string, NamedRecord | null>([
      ['a', { name: 'Alpha', href: '#/models/m/records/a' }],
      ['b', null],
    ]);
    const cell = recordsCell(['a', 'b', 'c', 'd', 'e'], named);
    assert.equal(cell.count, '5 records');
    assert.deepEqual(cell.shown, [
      { id: 'a', name: 'Alpha', href: '#/models/m/records/a' },
      { id: 'b', name: null, href: null },
    ]);
    assert.equal(cell.more, 3, 'c was not looked up (a failed look-up), d and e are past the first few');
    assert.deepEqual(recordsCell(['a'], new Map()), { count: '1 record', shown: [], more: 1 });
  });

  test('only a writer cancels, and only a pending schedule', () => {
    assert.equal(mayCancel({ status: 'pending' }, true), true);
    assert.equal(mayCancel({ status: 'pending' }, false), false);
    for (const status of ['done', 'failed', 'cancelled'] as const) assert.equal(mayCancel({ status }, true), false, status);
  });

  test('the cancel confirmation names the action, the records and the time', () => {
    const question = cancelQuestion({ action: 'unpublish', ids: ['a', 'b'] }, 'Jan 1, 2030, 10:00:00 AM');
    assert.equal(question.title, 'Cancel the unpublish of 2 records?');
    assert.match(question.message, /^It was to happen Jan 1, 2030, 10:00:00 AM\. The records stay as they are/);
  });
});

describe('schedules-state: the time of the Schedule form', () => {
  test('a time is shown in local time to the second, and read back as the same instant in UTC', () => {
    const date = new Date(2031, 2, 4, 5, 6, 7);
    assert.equal(toLocalInputValue(date), '2031-03-04T05:06:07');
    assert.equal(localInputToIso('2031-03-04T05:06:07'), date.toISOString());
    assert.equal(localInputToIso(toLocalInputValue(date)), date.toISOString());
    // The same wall-clock time in UTC, moved by the local zone's offset at that moment.
    const offsetMs = date.getTimezoneOffset() * 60_000;
    assert.equal(Date.parse(localInputToIso('2031-03-04T05:06:07')!), Date.UTC(2031, 2, 4, 5, 6, 7) + offsetMs);
  });

  test('a value without seconds is the full minute in local time; with milliseconds they are kept', () => {
    assert.equal(localInputToIso('2031-03-04T05:06'), new Date(2031, 2, 4, 5, 6, 0).toISOString());
    assert.equal(localInputToIso('2031-03-04T05:06:07.250'), new Date(2031, 2, 4, 5, 6, 7, 250).toISOString());
    assert.equal(localInputToIso('2031-03-04T05:06:07.5'), new Date(2031, 2, 4, 5, 6, 7, 500).toISOString());
  });

  test('the ISO time is in UTC (it ends in Z)', () => {
    assert.match(localInputToIso('2031-12-31T23:59:59')!, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  test('an empty, malformed or impossible value is not sent, with a problem to show at the field', () => {
    for (const value of ['', 'tomorrow', '2031-02-30T10:00', '2031-13-01T10:00', '2031-03-04 05:06']) {
      assert.equal(localInputToIso(value), null, value);
    }
    assert.equal(scheduleInputProblem(''), 'Choose a date and time.');
    assert.match(scheduleInputProblem('2031-02-30T10:00')!, /^Enter a date and time/);
    assert.equal(scheduleInputProblem('2031-03-04T05:06'), null, 'a past time is the server’s to refuse');
  });

  test('the form starts at a full hour, more than an hour ahead', () => {
    const now = new Date(2031, 2, 4, 10, 20, 30);
    const first = defaultScheduleTime(now);
    assert.equal(toLocalInputValue(first), '2031-03-04T12:00:00');
    assert.ok(first.getTime() - now.getTime() > 60 * 60 * 1000);
    assert.equal(toLocalInputValue(defaultScheduleTime(new Date(2031, 2, 4, 23, 0, 0))), '2031-03-05T01:00:00');
  });

  test('the labels and texts of the form and its result', () => {
    assert.deepEqual(scheduleLabels('publish'), {
      open: 'Schedule publish…',
      field: 'Publish at',
      submit: 'Schedule publish',
    });
    assert.equal(scheduleLabels('unpublish').open, 'Schedule unpublish…');
    assert.equal(
      scheduledText({ action: 'publish', ids: ['a', 'b'] }, 'Mar 4, 2031'),
      'Publish of 2 records scheduled for Mar 4, 2031.',
    );
    assert.equal(
      scheduledText({ action: 'unpublish', ids: ['a'] }, 'Mar 4, 2031', 'Summer hat'),
      'Unpublish of Summer hat scheduled for Mar 4, 2031.',
    );
    assert.equal(timeZoneHint('Europe/Warsaw'), 'In your local time (Europe/Warsaw).');
    assert.equal(timeZoneHint(undefined), 'In your local time.');
  });
});
