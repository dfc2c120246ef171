// The records page's state (src/admin-ui/records-state.ts): the URL's query, the addresses of other views of the
// list, paging after deletes, the columns, the selection of rows and why the table is empty. No DOM.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DEFAULT_LIMIT,
  columnLabel,
  emptyReason,
  filterProblem,
  isFiltering,
  offsetAfterDelete,
  otherColumns,
  parseRecordsQuery,
  pastEndOffset,
  recordCount,
  recordsAnnouncement,
  recordsHref,
  selectionSummary,
  toggleAll,
  toggleRecord,
} from '../../src/admin-ui/records-state.js';
import { sortParam } from '../../src/admin-ui/record-sort.js';
import type { ModelDefinition, RecordPage } from '../../src/admin-ui/types.js';

const model = {
  id: 'm1',
  name: 'Product',
  slug: 'product',
  fields: [
    { key: 'title', label: 'Title', type: 'text' },
    { key: 'body', label: 'Body', type: 'text' },
    { key: 'sku', label: 'SKU', type: 'text' },
    { key: 'price', label: 'Price', type: 'number' },
    { key: 'a', label: 'A', type: 'text' },
    { key: 'b', label: 'B', type: 'text' },
  ],
  product: { skuField: 'sku', priceField: 'price' },
} as unknown as ModelDefinition;

function page(total: number, shown: number): RecordPage {
  const items = Array.from({ length: shown }, (_, index) => ({
    id: `r${index}`,
    data: {},
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
  }));
  return { total, hasMore: false, items } as RecordPage;
}

describe('records-state: the query of the URL', () => {
  test('defaults: 50 a page from the start, newest first, no filter', () => {
    const query = parseRecordsQuery(new URLSearchParams(''));
    assert.equal(query.limit, DEFAULT_LIMIT);
    assert.equal(query.offset, 0);
    assert.equal(query.filter, undefined);
    assert.equal(query.filterText, null);
    assert.equal(typeof query.sortText, 'string');
    assert.equal(isFiltering(query), false);
  });

  test('a page size not offered and an offset that is no positive integer fall back', () => {
    assert.equal(parseRecordsQuery(new URLSearchParams('limit=37&offset=-5')).limit, 50);
    assert.equal(parseRecordsQuery(new URLSearchParams('limit=37&offset=-5')).offset, 0);
    assert.equal(parseRecordsQuery(new URLSearchParams('offset=2.5')).offset, 0);
    const kept = parseRecordsQuery(new URLSearchParams('limit=20&offset=40&sort=-title'));
    assert.deepEqual([kept.limit, kept.offset, kept.sortText], [20, 40, '-title']);
  });

  test('a filter that is not a JSON object: still filtering, and the bar says why nothing is applied', () => {
    const query = parseRecordsQuery(new URLSearchParams('filter=nonsense'));
    assert.equal(query.filter, undefined);
    assert.equal(isFiltering(query), true);
    assert.equal(filterProblem(undefined, query), 'The filter in the address is not a JSON object; all records are shown.');
    const good = parseRecordsQuery(new URLSearchParams({ filter: JSON.stringify({ title: { eq: 'x' } }) }));
    assert.deepEqual(good.filter, { title: { eq: 'x' } });
    assert.equal(filterProblem(undefined, good), undefined);
    assert.equal(filterProblem('filter: unknown field', good), 'filter: unknown field');
    assert.equal(filterProblem('sort: unknown column', good), undefined);
  });
});

describe('records-state: addresses and paging', () => {
  const current = { limit: 20, offset: 40, order: { column: 'title', descending: false }, filter: { a: { eq: 1 } } };

  test('a change keeps the rest of the view; filter null removes the filter; offsets never go below 0', () => {
    const same = new URLSearchParams(recordsHref('m1', current, {}).split('?')[1]);
    assert.equal(same.get('limit'), '20');
    assert.equal(same.get('offset'), '40');
    assert.equal(same.get('sort'), sortParam(current.order));
    assert.deepEqual(JSON.parse(same.get('filter')!), { a: { eq: 1 } });
    assert.ok(recordsHref('m1', current, {}).startsWith('#/models/m1/records?'));
    const unfiltered = new URLSearchParams(recordsHref('m1', current, { filter: null, offset: -20 }).split('?')[1]);
    assert.equal(unfiltered.has('filter'), false);
    assert.equal(unfiltered.get('offset'), '0');
    const sorted = new URLSearchParams(
      recordsHref('m1', current, { sort: { column: 'createdAt', descending: true }, limit: 100 }).split('?')[1],
    );
    assert.equal(sorted.get('sort'), sortParam({ column: 'createdAt', descending: true }));
    assert.equal(sorted.get('limit'), '100');
  });

  test('a page past the end goes to the last page; a page with rows or the first page stays', () => {
    assert.equal(pastEndOffset(page(45, 0), 60, 20), 40);
    assert.equal(pastEndOffset(page(40, 0), 60, 20), 20);
    assert.equal(pastEndOffset(page(45, 5), 40, 20), null);
    assert.equal(pastEndOffset(page(0, 0), 0, 20), null);
    assert.equal(pastEndOffset(page(0, 0), 40, 20), null);
  });

  test('deleting every row of a later page goes back one page; otherwise the page stays', () => {
    assert.equal(offsetAfterDelete(5, 5, 40, 20), 20);
    assert.equal(offsetAfterDelete(4, 5, 40, 20), 40);
    assert.equal(offsetAfterDelete(5, 5, 0, 20), 0);
  });

  test('the announcement names the rows shown', () => {
    assert.equal(recordsAnnouncement(page(45, 5), 40, false), 'Records 41 to 45 of 45');
    assert.equal(recordsAnnouncement(page(0, 0), 0, false), 'No records');
    assert.equal(recordsAnnouncement(page(0, 0), 0, true), 'No records match the filter');
  });
});

describe('records-state: columns, selection, empty table', () => {
  test('SKU and price come first after the display field, four columns at most', () => {
    const display = model.fields[0];
    assert.deepEqual(
      otherColumns(model, display).map((field) => field.key),
      ['sku', 'price', 'body', 'a'],
    );
    assert.equal(columnLabel(model, 'createdAt'), 'Created');
    assert.equal(columnLabel(model, 'updatedAt'), 'Updated');
    assert.equal(columnLabel(model, 'price'), 'Price');
    assert.equal(columnLabel(model, 'gone'), 'gone');
  });

  test('toggling rows and the whole page; the summary drives the status, the button and the select-all box', () => {
    let selection = toggleRecord(new Set(), 'r1', true);
    assert.deepEqual(selectionSummary(selection.size, 3), {
      status: '1 record selected',
      deleteDisabled: false,
      allChecked: false,
      indeterminate: true,
    });
    selection = toggleAll(selection, ['r1', 'r2', 'r3'], true);
    assert.deepEqual([...selection].sort(), ['r1', 'r2', 'r3']);
    assert.equal(selectionSummary(selection.size, 3).allChecked, true);
    assert.equal(selectionSummary(selection.size, 3).status, '3 records selected');
    const before = selection;
    selection = toggleRecord(selection, 'r2', false);
    assert.equal(before.size, 3, 'the selection before is left as it was');
    assert.deepEqual([...selection].sort(), ['r1', 'r3']);
    selection = toggleAll(selection, ['r1', 'r2', 'r3'], false);
    assert.deepEqual(selectionSummary(selection.size, 3), {
      status: 'None selected',
      deleteDisabled: true,
      allChecked: false,
      indeterminate: false,
    });
    assert.equal(recordCount(1), '1 record');
    assert.equal(recordCount(1200), `${(1200).toLocaleString()} records`);
  });

  test('why the table is empty', () => {
    assert.equal(emptyReason('filter: no such field', true), 'filter-refused');
    assert.equal(emptyReason('sort: no such column', false), 'sort-refused');
    assert.equal(emptyReason(undefined, true), 'no-match');
    assert.equal(emptyReason(undefined, false), 'no-records');
  });
});
