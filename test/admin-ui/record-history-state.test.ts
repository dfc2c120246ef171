// The record form's History panel state (src/admin-ui/record-history-state.ts): pages of revisions put together,
// the current revision, which revisions may be restored, the texts of the list, and the rows of a comparison made
// from an RFC 6902 patch (paths named by field labels, values then and now). No DOM.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  EMPTY_HISTORY,
  changeRows,
  comparisonTitle,
  currentRevision,
  dottedPath,
  historyStatus,
  mayRestore,
  nextOffset,
  noChangesText,
  operationText,
  pathLabel,
  pointerSegments,
  restoredText,
  valueText,
  withPage,
  type Revision,
} from '../../src/admin-ui/record-history-state.js';

function revision(number: number, operation = 'patch'): Revision {
  return { revision: number, operation, createdAt: '2026-01-01T00:00:00Z', createdBy: 'owner@acme.test' };
}

/** Revisions `from` down to `to`, newest first. */
function revisions(from: number, to: number): Revision[] {
  return Array.from({ length: from - to + 1 }, (_, index) => revision(from - index));
}

const FIELDS = [
  { key: 'title', label: 'Title' },
  { key: 'name', label: 'Name' },
  {
    key: 'address',
    label: 'Address',
    fields: [
      { key: 'city', label: 'City' },
      { key: 'zip', label: '' },
    ],
  },
];

describe('record-history-state: the list of revisions', () => {
  test('the first page starts the list; a later page is added below it, and Load more reads on from its end', () => {
    const first = withPage(EMPTY_HISTORY, { total: 25, hasMore: true, items: revisions(25, 6) }, true);
    assert.equal(first.items.length, 20);
    assert.equal(nextOffset(first), 20);
    assert.equal(first.hasMore, true);
    const all = withPage(first, { total: 25, hasMore: false, items: revisions(5, 1) });
    assert.deepEqual(
      all.items.map((item) => item.revision),
      revisions(25, 1).map((item) => item.revision),
    );
    assert.equal(all.hasMore, false);
    assert.equal(nextOffset(all), 25);
  });

  test('revisions made between two reads shift the next page: the ones it repeats are shown once', () => {
    const first = withPage(EMPTY_HISTORY, { total: 25, hasMore: true, items: revisions(25, 6) }, true);
    // Two new revisions (26, 27): offset 20 now starts at revision 7.
    const next = withPage(first, { total: 27, hasMore: false, items: revisions(7, 1) });
    assert.deepEqual(
      next.items.map((item) => item.revision),
      revisions(25, 1).map((item) => item.revision),
    );
    assert.equal(next.total, 27);
  });

  test('a first page read again replaces the list', () => {
    const before = withPage(EMPTY_HISTORY, { total: 3, hasMore: false, items: revisions(3, 1) }, true);
    const after = withPage(before, { total: 4, hasMore: false, items: revisions(4, 1) }, true);
    assert.deepEqual(
      after.items.map((item) => item.revision),
      [4, 3, 2, 1],
    );
  });

  test('the current revision is the newest; none before a read', () => {
    assert.equal(currentRevision(EMPTY_HISTORY), null);
    assert.equal(currentRevision(withPage(EMPTY_HISTORY, { total: 3, hasMore: false, items: revisions(3, 1) }, true)), 3);
  });

  test('the status line counts the revisions shown and kept', () => {
    assert.equal(historyStatus(EMPTY_HISTORY), 'No revisions are kept for this record.');
    assert.equal(
      historyStatus(withPage(EMPTY_HISTORY, { total: 1, hasMore: false, items: [revision(1, 'create')] })),
      '1 revision',
    );
    assert.equal(historyStatus(withPage(EMPTY_HISTORY, { total: 3, hasMore: false, items: revisions(3, 1) })), '3 revisions');
    assert.equal(
      historyStatus(withPage(EMPTY_HISTORY, { total: 45, hasMore: true, items: revisions(45, 26) })),
      'Showing 20 of 45 revisions',
    );
  });

  test('operations read as words; an operation this version does not know, as the server names it', () => {
    assert.equal(operationText('create'), 'Created');
    assert.equal(operationText('patch'), 'Edited');
    assert.equal(operationText('update'), 'Replaced');
    assert.equal(operationText('restore'), 'Restored');
    assert.equal(operationText('archive'), 'archive');
  });

  test('Restore is offered to writers, for every revision but the current one', () => {
    const state = withPage(EMPTY_HISTORY, { total: 3, hasMore: false, items: revisions(3, 1) }, true);
    assert.equal(mayRestore(state, 1, true), true);
    assert.equal(mayRestore(state, 2, true), true);
    assert.equal(mayRestore(state, 3, true), false);
    assert.equal(mayRestore(state, 1, false), false, 'a viewer sees the history, not Restore');
    assert.equal(mayRestore(EMPTY_HISTORY, 1, true), false);
  });
});

describe('record-history-state: a comparison of a revision with the current one', () => {
  test('pointers are split as RFC 6901 says (~1 is /, ~0 is ~) and read as dotted paths', () => {
    assert.deepEqual(pointerSegments(''), []);
    assert.deepEqual(pointerSegments('/name/en'), ['name', 'en']);
    assert.deepEqual(pointerSegments('/a~1b/c~0d/~01'), ['a/b', 'c~d', '~1']);
    assert.equal(dottedPath('/address/city'), 'address.city');
  });

  test('a path is named by the labels of its fields and sub-fields, then what is below them as it is', () => {
    assert.equal(pathLabel('/title', FIELDS), 'Title');
    assert.equal(pathLabel('/name/en', FIELDS), 'Name › en');
    assert.equal(pathLabel('/address/city', FIELDS), 'Address › City');
    assert.equal(pathLabel('/address/zip', FIELDS), 'Address › zip', 'a field without a label by its key');
    assert.equal(pathLabel('/gone', FIELDS), 'gone', 'a field the model no longer has');
    assert.equal(pathLabel('', FIELDS), 'Whole record');
  });

  test('values: text as it is, other values as JSON, a missing value as (not set)', () => {
    assert.equal(valueText('Old title', true), 'Old title');
    assert.equal(valueText('', true), '(empty text)');
    assert.equal(valueText(9.5, true), '9.5');
    assert.equal(valueText(false, true), 'false');
    assert.equal(valueText(null, true), 'null');
    assert.equal(valueText(['a', 'b'], true), '["a","b"]');
    assert.equal(valueText({ en: 'Hi' }, true), '{"en":"Hi"}');
    assert.equal(valueText(null, false), '(not set)');
    assert.equal(valueText(undefined, true), '(not set)');
  });

  test('replace is changed, add is added since the revision, remove is removed since; the value then and now', () => {
    const rows = changeRows(
      [
        { op: 'add', path: '/name/de', value: 'Hallo', oldValue: null },
        { op: 'remove', path: '/note', value: null, oldValue: 'a note' },
        { op: 'replace', path: '/title', value: 'Third', oldValue: 'First' },
      ],
      FIELDS,
    );
    assert.deepEqual(rows, [
      { path: 'name.de', label: 'Name › de', change: 'added', then: '(not set)', now: 'Hallo' },
      { path: 'note', label: 'note', change: 'removed', then: 'a note', now: '(not set)' },
      { path: 'title', label: 'Title', change: 'changed', then: 'First', now: 'Third' },
    ]);
  });

  test('a value replaced by null, or null replaced, still shows null on its side (only add and remove have none)', () => {
    const [row] = changeRows([{ op: 'replace', path: '/title', value: null, oldValue: 'x' }], FIELDS);
    assert.equal(row!.now, 'null');
    assert.equal(row!.then, 'x');
  });

  test('the texts around a comparison and after a restore', () => {
    assert.equal(comparisonTitle(1, 3), 'Revision 1 compared with the current revision (3)');
    assert.equal(noChangesText(2, 3), 'Revision 2 has the same data as the current revision.');
    assert.equal(noChangesText(3, 3), 'Revision 3 is the current revision.');
    assert.equal(restoredText('Book 1', 1, 4), 'Book 1 restored to revision 1 (now revision 4).');
  });
});
