// The records page's table, built from its state: the sortable column headers, one row per record (a selection
// box and a delete button where the role may write; a status badge for a model with drafts), and the paragraph shown
// in its place when there is nothing.
import { h, type Child } from './dom.js';
import { focusKey, returnFocusTo } from './focus-return.js';
import { DEFAULT_SORT, directionText, isSortableField, nextSortOrder, sortOrderOf, type SortOrder } from './record-sort.js';
import { columnLabel, type EmptyReason, type RecordsChange } from './records-state.js';
import { recordName } from './record-names.js';
import { mediaCell, type AssetsById } from './records-media.js';
import { noRecordsWithStatusText, statusText, type RecordStatus } from './record-status-state.js';
import { statusBadge } from './record-status.js';
import type { FieldDefinition, JsonObject, ModelDefinition, ModelRecord, RecordPage } from './types.js';
import { button, linkButton } from './ui.js';
import { cellText, formatDateTime } from './values.js';

/** What the table shows and where its links go. */
export interface RecordsTableView {
  model: ModelDefinition;
  page: RecordPage;
  order: SortOrder;
  filter: JsonObject | undefined;
  /** The status filter of a model with drafts (undefined: every status). */
  status: RecordStatus | undefined;
  canWrite: boolean;
  locales: readonly string[];
  display: FieldDefinition | undefined;
  others: FieldDefinition[];
  href: (next: RecordsChange) => string;
  recordHref: (recordId: string) => string;
  /** The assets of the page's media cells (records-media.ts); absent: the cells show ids. */
  assets?: AssetsById;
}

/** The controls the page owns: the selection boxes and what a row's delete button does. */
export interface RecordsTableControls {
  selectAll: HTMLInputElement;
  rowBox: (record: ModelRecord) => HTMLInputElement;
  onDelete: (record: ModelRecord) => void | Promise<void>;
}

/** A column header; a link that sorts by it (then the other way) for the sortable ones. */
function columnHeader(view: RecordsTableView, label: string, column: string | null, className: string | null = null) {
  if (column === null) return h('th', { scope: 'col', class: className }, label);
  const { order } = view;
  const active = order.column === column;
  const next = nextSortOrder(order, column);
  return h(
    'th',
    { scope: 'col', class: className, 'aria-sort': active ? (order.descending ? 'descending' : 'ascending') : 'none' },
    focusKey(
      h(
        'a',
        {
          href: view.href({ sort: next, offset: 0 }),
          class: 'sort-link',
          'aria-label': `${label}: sort ${directionText(column, next.descending)}`,
          onclick: () => returnFocusTo(`sort-${column}`),
        },
        label,
        h('span', { 'aria-hidden': 'true', class: 'sort-mark' }, active ? (order.descending ? ' ▼' : ' ▲') : ' ↕'),
      ),
      `sort-${column}`,
    ),
  );
}

function fieldHeader(view: RecordsTableView, field: FieldDefinition | undefined, className: string | null = null) {
  return columnHeader(view, field?.label ?? 'Record', field && isSortableField(field) ? field.key : null, className);
}

function recordRow(view: RecordsTableView, controls: RecordsTableControls, record: ModelRecord): HTMLElement {
  const { model, canWrite } = view;
  const name = recordName(model, record);
  return h(
    'tr',
    null,
    canWrite ? h('td', { class: 'select' }, controls.rowBox(record)) : null,
    h('th', { scope: 'row' }, h('a', { href: view.recordHref(record.id) }, name)),
    model.drafts ? h('td', { class: 'status-cell' }, statusBadge(record.status)) : null,
    view.others.map((field) =>
      field.type === 'media'
        ? mediaCell(record.data[field.key], view.assets ?? new Map())
        : h('td', { class: field.type === 'number' ? 'num' : null }, cellText(record.data[field.key], field, view.locales)),
    ),
    h('td', null, h('time', { datetime: record.createdAt }, formatDateTime(record.createdAt))),
    h('td', null, h('time', { datetime: record.updatedAt }, formatDateTime(record.updatedAt))),
    h(
      'td',
      { class: 'actions' },
      linkButton(canWrite ? 'Edit' : 'View', view.recordHref(record.id), {
        'aria-label': `${canWrite ? 'Edit' : 'View'} ${name}`,
      }),
      canWrite
        ? button('Delete', () => controls.onDelete(record), {
            class: 'button button-danger',
            'aria-label': `Delete ${name}`,
          })
        : null,
    ),
  );
}

export function recordsTable(view: RecordsTableView, controls: RecordsTableControls): HTMLElement {
  const { model, order } = view;
  const rows = view.page.items.map((record) => recordRow(view, controls, record));
  return h(
    'div',
    { class: 'table-scroll' },
    h(
      'table',
      { class: 'table records' },
      h(
        'caption',
        { class: 'visually-hidden' },
        `Records of ${model.name}${view.filter ? ', filtered' : ''}${view.status ? `, ${statusText(view.status).toLowerCase()} only` : ''}, by ${columnLabel(model, order.column).toLowerCase()}, ${directionText(order.column, order.descending)}`,
      ),
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          view.canWrite ? h('th', { scope: 'col', class: 'select' }, controls.selectAll) : null,
          fieldHeader(view, view.display),
          model.drafts ? h('th', { scope: 'col' }, 'Status') : null,
          view.others.map((field) => fieldHeader(view, field, field.type === 'number' ? 'num' : null)),
          columnHeader(view, 'Created', 'createdAt'),
          columnHeader(view, 'Updated', 'updatedAt'),
          h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
        ),
      ),
      h('tbody', null, rows),
    ),
  );
}

/** The paragraph in place of the table when it has no rows. */
export function emptyRecords(view: RecordsTableView, reason: EmptyReason): HTMLElement {
  return h('p', { class: 'empty' }, emptyRecordsText(view, reason));
}

function emptyRecordsText(view: RecordsTableView, reason: EmptyReason): Child {
  const { model } = view;
  switch (reason) {
    case 'filter-refused':
      return 'No records shown: the server refused the filter above.';
    case 'sort-refused':
      return [
        'No records shown: the server refused the sort. ',
        h('a', { href: view.href({ sort: sortOrderOf(DEFAULT_SORT, model), offset: 0 }) }, 'Show them newest first'),
        '.',
      ];
    case 'no-match':
      return view.status && !view.filter ? noRecordsWithStatusText(view.status) : 'No records match the filter.';
    case 'no-records':
      return [
        'No records yet. ',
        view.canWrite
          ? [
              h('a', { href: view.recordHref('new') }, 'Add one'),
              ' or ',
              h('a', { href: `#/models/${model.id}/import` }, 'import a CSV'),
              '.',
            ]
          : null,
      ];
  }
}
