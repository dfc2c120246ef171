// Drafts in the admin application without a DOM (src/admin-ui/record-status-state.ts, and the records view's `status`
// in records-state.ts and records-view.ts): the badge texts, the status filter as the URL carries it, which buttons
// the record form offers in each status and role, which selected rows a bulk Publish or Unpublish sends, the texts of
// the results and of the note about linked records that are not published, and the chunks of ids the API takes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  MAX_PUBLISH_IDS,
  RECORD_STATUSES,
  bulkAvailability,
  bulkDoneText,
  bulkTargets,
  idChunks,
  isRecordStatus,
  noRecordsWithStatusText,
  publishTargetsLabel,
  publishedDetail,
  recordActions,
  statusFilterOptions,
  statusFromParam,
  statusText,
  unpublishedTargetsText,
} from '../../src/admin-ui/record-status-state.js';
import { isFiltering, parseRecordsQuery, recordsHref } from '../../src/admin-ui/records-state.js';
import { recordsViewOf } from '../../src/admin-ui/records-view.js';

describe('record-status-state: statuses and the status filter', () => {
  test('each status has a badge text; an unknown one is shown as the server names it', () => {
    assert.deepEqual(
      RECORD_STATUSES.map((status) => statusText(status)),
      ['Draft', 'Changed', 'Published'],
    );
    assert.equal(statusText('scheduled'), 'scheduled');
    assert.equal(statusText(undefined), '');
    assert.equal(isRecordStatus('draft'), true);
    assert.equal(isRecordStatus('Draft'), false);
  });

  test('the filter offers all, draft, changed and published; the URL parameter takes only a known status', () => {
    assert.deepEqual(
      statusFilterOptions().map((option) => option.value),
      ['', 'draft', 'changed', 'published'],
    );
    assert.equal(statusFilterOptions()[0]!.label, 'All statuses');
    assert.equal(statusFromParam('changed'), 'changed');
    assert.equal(statusFromParam('nonsense'), undefined);
    assert.equal(statusFromParam(null), undefined);
    assert.equal(noRecordsWithStatusText('draft'), 'No records are draft.');
  });

  test('the records view carries the status: parsed, kept by a change, removed by status: null, and back from the form', () => {
    const query = parseRecordsQuery(new URLSearchParams('status=draft&limit=20'));
    assert.equal(query.status, 'draft');
    assert.equal(isFiltering(query), true, 'a status filters the view');
    assert.equal(parseRecordsQuery(new URLSearchParams('status=bogus')).status, undefined);
    const current = {
      limit: 20,
      offset: 40,
      order: { column: 'title', descending: false },
      filter: undefined,
      status: query.status,
    };
    const kept = new URLSearchParams(recordsHref('m1', current, { offset: 0 }).split('?')[1]);
    assert.equal(kept.get('status'), 'draft');
    assert.equal(kept.get('offset'), '0');
    const changed = new URLSearchParams(recordsHref('m1', current, { status: 'published' }).split('?')[1]);
    assert.equal(changed.get('status'), 'published');
    const removed = new URLSearchParams(recordsHref('m1', current, { status: null }).split('?')[1]);
    assert.equal(removed.has('status'), false);
    assert.equal(recordsViewOf(new URLSearchParams('status=changed&other=1')).toString(), 'status=changed');
  });
});

describe('record-status-state: what the record form offers', () => {
  test('Publish for draft and changed, Unpublish for published and changed, Discard only for changed', () => {
    assert.deepEqual(recordActions('draft', true), { publish: true, unpublish: false, discard: false });
    assert.deepEqual(recordActions('published', true), { publish: false, unpublish: true, discard: false });
    assert.deepEqual(recordActions('changed', true), { publish: true, unpublish: true, discard: true });
  });

  test('a role that may not write records gets no button in any status', () => {
    for (const status of RECORD_STATUSES) {
      assert.deepEqual(recordActions(status, false), { publish: false, unpublish: false, discard: false });
    }
  });

  test('the status line says what is live, and that changes since are not', () => {
    const time = (iso: string) => `at ${iso}`;
    assert.equal(
      publishedDetail({ status: 'draft', publishedRevision: null, publishedAt: null }, time),
      'Not published: the delivery route does not serve it.',
    );
    assert.equal(
      publishedDetail({ status: 'published', publishedRevision: 3, publishedAt: 'T' }, time),
      'Revision 3 is live, published at T.',
    );
    assert.equal(
      publishedDetail({ status: 'changed', publishedRevision: 3, publishedAt: 'T' }, time),
      'Revision 3 is live, published at T. The changes since are not published.',
    );
  });
});

describe('record-status-state: bulk Publish and Unpublish', () => {
  const rows = [
    { id: 'a', status: 'draft' },
    { id: 'b', status: 'published' },
    { id: 'c', status: 'changed' },
  ];

  test('Publish sends the rows not published as they are; Unpublish the rows with a published copy', () => {
    assert.deepEqual(
      bulkTargets('publish', rows).map((row) => row.id),
      ['a', 'c'],
    );
    assert.deepEqual(
      bulkTargets('unpublish', rows).map((row) => row.id),
      ['b', 'c'],
    );
  });

  test('a button is available only when a selected row is one it would send', () => {
    assert.deepEqual(bulkAvailability([]), { publish: false, unpublish: false });
    assert.deepEqual(bulkAvailability([rows[0]!]), { publish: true, unpublish: false });
    assert.deepEqual(bulkAvailability([rows[1]!]), { publish: false, unpublish: true });
    assert.deepEqual(bulkAvailability(rows), { publish: true, unpublish: true });
  });

  test('the result and the note about linked records name how many', () => {
    assert.equal(bulkDoneText('publish', 1), '1 record published.');
    assert.equal(bulkDoneText('unpublish', 3), '3 records unpublished.');
    assert.equal(
      unpublishedTargetsText(1),
      '1 record these link to is not published: the delivery route shows that link as empty.',
    );
    assert.equal(
      unpublishedTargetsText(2),
      '2 records these link to are not published: the delivery route shows those links as empty.',
    );
    assert.equal(publishTargetsLabel(1), 'Publish the linked record too');
    assert.equal(publishTargetsLabel(2), 'Publish the 2 records too');
  });

  test('ids go to the API at most 1000 a call', () => {
    const ids = Array.from({ length: 2001 }, (_, index) => `r${index}`);
    assert.deepEqual(
      idChunks(ids).map((chunk) => chunk.length),
      [MAX_PUBLISH_IDS, MAX_PUBLISH_IDS, 1],
    );
    assert.deepEqual(idChunks([]), []);
  });
});
