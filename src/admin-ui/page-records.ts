// The records of one model: a table paged by the server (limit and offset, `total` from the API), filtered by the
// filter bar and sorted by any sortable column (record.list `filter` and `sort`, delivery.md), the display field
// first. Filter, sort and page live in the URL, and the record form's links carry them back (records-view.ts). One
// GraphQL request per page (two when the server refuses the filter), besides the model list read once (models-cache).
import { ApiError, gql } from './api.js';
import { h, replaceChildren } from './dom.js';
import { filterBar } from './filter-bar.js';
import { focusKey, returnFocusTo } from './focus-return.js';
import { listModels, MODEL_SELECTION } from './models-cache.js';
import type { PageContext } from './page.js';
import { filterFromParam } from './record-filter.js';
import {
  DEFAULT_SORT,
  directionText,
  isSortableField,
  nextSortOrder,
  sortOrderOf,
  sortParam,
  type SortOrder,
} from './record-sort.js';
import { LIMITS, recordsPager } from './records-pager.js';
import { recordFormHref, recordsViewOf } from './records-view.js';
import { deleteSelected, recordCount, type BulkDeleteOutcome } from './records-bulk-delete.js';
import { exportFileName, readView, recordsCsv, recordsJson, type ExportFormat } from './records-export.js';
import {
  mayChangeModels,
  mayWriteRecords,
  type FieldDefinition,
  type JsonObject,
  type ModelDefinition,
  type ModelRecord,
  type RecordPage,
} from './types.js';
import { alertBox, announce, button, confirmDialog, download, errorArea, linkButton, pageHeader } from './ui.js';
import { displayFieldOf, preferredLocales, recordName } from './record-names.js';
import { cellText, formatDateTime } from './values.js';

const DEFAULT_LIMIT = 50;

/** What a delete of selected records left to say on the page it re-renders (the failures stay until read). */
let bulkReport: { modelId: string; outcome: BulkDeleteOutcome } | null = null;

function bulkReportBox(outcome: BulkDeleteOutcome): HTMLElement | null {
  const asked = outcome.deleted.length + outcome.failed.length + outcome.notTried.length;
  if (outcome.failed.length === 0 && outcome.notTried.length === 0) return null;
  return alertBox(
    [
      h('p', null, `${outcome.deleted.length} of ${recordCount(asked)} deleted.`, outcome.stopped ? ` ${outcome.stopped}` : ''),
      h(
        'ul',
        null,
        outcome.failed.map((failure) => h('li', null, h('strong', null, failure.name), `: ${failure.message}`)),
        outcome.notTried.length > 0
          ? h('li', null, `Not tried: ${outcome.notTried.map((target) => target.name).join(', ')}`)
          : null,
      ),
    ],
    { title: 'Some records were not deleted.' },
  );
}

/** Deletes a record after confirmation; offers force when other records still point at it. True when deleted. */
export async function deleteRecord(
  model: ModelDefinition,
  record: ModelRecord,
  onError: (error: unknown) => void,
): Promise<boolean> {
  const name = recordName(model, record);
  const confirmed = await confirmDialog({
    title: `Delete ${name}?`,
    message: h('p', null, `The record is deleted from ${model.name}. This cannot be undone.`),
    confirmLabel: 'Delete record',
    danger: true,
  });
  if (!confirmed) return false;
  const mutation =
    'mutation DeleteRecord($id: ID!, $force: Boolean) { record { delete(id: $id, force: $force) { id deleted } } }';
  try {
    await gql(mutation, { id: record.id, force: false });
    return true;
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'CONFLICT') {
      onError(error);
      return false;
    }
    const force = await confirmDialog({
      title: `${name} is still linked`,
      message: [
        h('p', null, error.message.replace(/^id: /, '').replace(/; delete with force: true to remove the references$/, '.')),
        h('p', null, 'Delete it anyway and remove those links from the other records?'),
      ],
      confirmLabel: 'Delete and remove links',
      danger: true,
    });
    if (!force) return false;
    try {
      await gql(mutation, { id: record.id, force: true });
      return true;
    } catch (forced) {
      onError(forced);
      return false;
    }
  }
}

interface Loaded {
  model: ModelDefinition;
  page: RecordPage;
  /** The server's refusal of the filter or sort of the URL: the table is empty and the message shown. */
  refusal?: string;
}

const RECORD_SELECTION = 'total hasMore items { id data createdAt updatedAt }';

/** The model and one page of its records; null when the model does not exist. */
async function loadRecords(
  modelId: string,
  list: { limit: number; offset: number; sort: string; filter: JsonObject | undefined },
): Promise<Loaded | null> {
  // Without a filter the request is the one of before (the argument is left out, not sent as null).
  const filtered = list.filter !== undefined;
  try {
    const data = await gql<{ model: { get: ModelDefinition | null }; record: { list: RecordPage } }>(
      `query AdminRecords($id: ID!, $limit: Int, $offset: Int, $sort: String${filtered ? ', $filter: JSON' : ''}) {
        model { get(id: $id) { ${MODEL_SELECTION} } }
        record { list(modelId: $id, limit: $limit, offset: $offset, sort: $sort${filtered ? ', filter: $filter' : ''}) { ${RECORD_SELECTION} } }
      }`,
      { id: modelId, ...list },
    );
    return data.model.get ? { model: data.model.get, page: data.record.list } : null;
  } catch (error) {
    if (error instanceof ApiError && error.code === 'NOT_FOUND') return null;
    if (!(error instanceof ApiError) || error.code !== 'BAD_USER_INPUT' || !/^(filter|sort)\b/.test(error.message)) throw error;
    const data = await gql<{ model: { get: ModelDefinition | null } }>(
      `query AdminModel($id: ID!) { model { get(id: $id) { ${MODEL_SELECTION} } } }`,
      { id: modelId },
    );
    if (!data.model.get) return null;
    return { model: data.model.get, page: { total: 0, hasMore: false, items: [] }, refusal: error.message };
  }
}

export async function renderRecords(ctx: PageContext): Promise<void> {
  const modelId = ctx.params.modelId!;
  const limitParam = Number(ctx.query.get('limit'));
  const limit = (LIMITS as readonly number[]).includes(limitParam) ? limitParam : DEFAULT_LIMIT;
  const offsetParam = Number(ctx.query.get('offset'));
  const offset = Number.isInteger(offsetParam) && offsetParam > 0 ? offsetParam : 0;
  const filterText = ctx.query.get('filter');
  const filter = filterFromParam(filterText);
  // The sort is checked against the model once it is read; the server refuses one it does not know.
  const sortText = ctx.query.get('sort') ?? DEFAULT_SORT;

  // The workspace's models (cached) for the filter bar's relation conditions; without them ids are typed.
  const [loaded, models] = await Promise.all([
    loadRecords(modelId, { limit, offset, sort: sortText, filter }),
    listModels().catch((): ModelDefinition[] => []),
  ]);
  if (!ctx.isCurrent()) return;
  if (!loaded) {
    ctx.setTitle('Model not found');
    replaceChildren(
      ctx.main,
      pageHeader('Model not found'),
      alertBox('This model does not exist in this workspace (any more).'),
      h('p', null, h('a', { href: '#/models' }, 'Back to the models')),
    );
    return;
  }
  const { model, page } = loaded;
  const order = sortOrderOf(sortText, model);
  // The record form returns to this view (records-view.ts).
  const view = recordsViewOf(ctx.query);
  const recordHref = (recordId: string) => recordFormHref(model.id, recordId, view);
  ctx.setTitle(`${model.name} records`);
  const canWrite = mayWriteRecords(ctx.workspace.role);
  const errors = errorArea();
  const locales = preferredLocales();

  const href = (next: { offset?: number; limit?: number; sort?: SortOrder; filter?: JsonObject | null }) => {
    const query = new URLSearchParams({
      sort: sortParam(next.sort ?? order),
      limit: String(next.limit ?? limit),
      offset: String(Math.max(0, next.offset ?? offset)),
    });
    const nextFilter = next.filter === null ? undefined : (next.filter ?? filter);
    if (nextFilter) query.set('filter', JSON.stringify(nextFilter));
    return `#/models/${model.id}/records?${query}`;
  };
  // A page past the end (its last records deleted, here or on the record form) gives way to the last page, in
  // place of this address, so that Back does not come here again.
  if (page.items.length === 0 && page.total > 0 && offset > 0) {
    ctx.redirect(href({ offset: Math.floor((page.total - 1) / limit) * limit }));
    return;
  }

  const display = displayFieldOf(model);
  const priority = [model.product?.skuField, model.product?.priceField].filter((key): key is string => Boolean(key));
  const others = [
    ...model.fields.filter((field) => priority.includes(field.key) && field !== display),
    ...model.fields.filter((field) => !priority.includes(field.key) && field !== display),
  ].slice(0, 4);
  const columnLabel = (column: string) =>
    column === 'createdAt'
      ? 'Created'
      : column === 'updatedAt'
        ? 'Updated'
        : (model.fields.find((field) => field.key === column)?.label ?? column);

  /** A column header; a link that sorts by it (then the other way) for the sortable ones. */
  const columnHeader = (label: string, column: string | null, className: string | null = null) => {
    if (column === null) return h('th', { scope: 'col', class: className }, label);
    const active = order.column === column;
    const next = nextSortOrder(order, column);
    return h(
      'th',
      { scope: 'col', class: className, 'aria-sort': active ? (order.descending ? 'descending' : 'ascending') : 'none' },
      focusKey(
        h(
          'a',
          {
            href: href({ sort: next, offset: 0 }),
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
  };
  const fieldHeader = (field: FieldDefinition | undefined, className: string | null = null) =>
    columnHeader(field?.label ?? 'Record', field && isSortableField(field) ? field.key : null, className);

  // Selection for deleting several records at once: the records of this page only (a new page starts empty).
  const selected = new Set<string>();
  const rowBoxes: { record: ModelRecord; box: HTMLInputElement }[] = [];
  const selectAll: HTMLInputElement = h('input', {
    type: 'checkbox',
    class: 'select-all',
    'aria-label': 'Select all records on this page',
    onchange: () => {
      for (const { record, box } of rowBoxes) {
        box.checked = selectAll.checked;
        if (selectAll.checked) selected.add(record.id);
        else selected.delete(record.id);
      }
      selectionChanged();
    },
  });
  const selectionStatus = h('span', { class: 'selection-status', 'aria-live': 'polite' });
  const deleteSelectedButton = button('Delete selected', () => deleteChosen(), {
    class: 'button button-danger',
    disabled: true,
  });
  const selectionChanged = () => {
    const count = selected.size;
    selectionStatus.textContent = count === 0 ? 'None selected' : `${recordCount(count)} selected`;
    deleteSelectedButton.disabled = count === 0;
    selectAll.checked = count > 0 && count === rowBoxes.length;
    selectAll.indeterminate = count > 0 && count < rowBoxes.length;
  };
  const deleteChosen = async () => {
    const targets = rowBoxes
      .filter(({ record }) => selected.has(record.id))
      .map(({ record }) => ({ id: record.id, name: recordName(model, record) }));
    if (targets.length === 0) return;
    errors.clear();
    const confirmed = await confirmDialog({
      title: `Delete ${recordCount(targets.length)}?`,
      message: [
        h(
          'p',
          null,
          `${targets.length === 1 ? 'This record is' : `These ${targets.length} records are`} deleted from ${model.name}. This cannot be undone.`,
        ),
        h(
          'ul',
          { class: 'dialog-list' },
          targets.slice(0, 10).map((target) => h('li', null, target.name)),
        ),
        targets.length > 10 ? h('p', null, `and ${recordCount(targets.length - 10)} more.`) : null,
      ],
      confirmLabel: `Delete ${recordCount(targets.length)}`,
      danger: true,
    });
    if (!confirmed) return;
    deleteSelectedButton.disabled = true;
    const outcome = await deleteSelected(targets, {
      onProgress: (done, total) => {
        selectionStatus.textContent = `Deleting… ${done} of ${total}`;
      },
      onWait: (seconds) => {
        selectionStatus.textContent = `Waiting ${seconds} s for the write budget…`;
      },
    });
    if (!ctx.isCurrent()) return;
    if (outcome.deleted.length > 0) ctx.flash(`${recordCount(outcome.deleted.length)} deleted.`);
    bulkReport = { modelId: model.id, outcome };
    const emptied = outcome.deleted.length === page.items.length && offset > 0;
    ctx.navigate(href({ offset: emptied ? offset - limit : offset }));
  };

  const rows = page.items.map((record) =>
    h(
      'tr',
      null,
      canWrite
        ? h(
            'td',
            { class: 'select' },
            (() => {
              const box: HTMLInputElement = h('input', {
                type: 'checkbox',
                'aria-label': `Select ${recordName(model, record)}`,
                onchange: () => {
                  if (box.checked) selected.add(record.id);
                  else selected.delete(record.id);
                  selectionChanged();
                },
              });
              rowBoxes.push({ record, box });
              return box;
            })(),
          )
        : null,
      h('th', { scope: 'row' }, h('a', { href: recordHref(record.id) }, recordName(model, record))),
      others.map((field) =>
        h('td', { class: field.type === 'number' ? 'num' : null }, cellText(record.data[field.key], field, locales)),
      ),
      h('td', null, h('time', { datetime: record.createdAt }, formatDateTime(record.createdAt))),
      h('td', null, h('time', { datetime: record.updatedAt }, formatDateTime(record.updatedAt))),
      h(
        'td',
        { class: 'actions' },
        linkButton(canWrite ? 'Edit' : 'View', recordHref(record.id), {
          'aria-label': `${canWrite ? 'Edit' : 'View'} ${recordName(model, record)}`,
        }),
        canWrite
          ? button(
              'Delete',
              async () => {
                errors.clear();
                const deleted = await deleteRecord(model, record, (error) => errors.show(error, 'The record was not deleted.'));
                if (deleted) {
                  ctx.flash(`${recordName(model, record)} deleted.`);
                  ctx.navigate(href({ offset: page.items.length === 1 && offset > 0 ? offset - limit : offset }));
                }
              },
              { class: 'button button-danger', 'aria-label': `Delete ${recordName(model, record)}` },
            )
          : null,
      ),
    ),
  );

  const filtering = filter !== undefined || (filterText !== null && filterText !== '');
  const bar =
    filtering || page.total > 0
      ? filterBar({
          model,
          filter,
          defaultLocale: locales[0]?.split('-')[0] ?? 'en',
          models,
          apply: (next) => ctx.navigate(href({ filter: next ?? null, offset: 0 })),
          ...(loaded.refusal?.startsWith('filter')
            ? { problem: loaded.refusal }
            : filterText && !filter
              ? { problem: 'The filter in the address is not a JSON object; all records are shown.' }
              : {}),
        })
      : null;
  if (loaded.refusal && !loaded.refusal.startsWith('filter')) errors.show(new Error(loaded.refusal));

  const empty = loaded.refusal
    ? loaded.refusal.startsWith('filter')
      ? h('p', { class: 'empty' }, 'No records shown: the server refused the filter above.')
      : h(
          'p',
          { class: 'empty' },
          'No records shown: the server refused the sort. ',
          h('a', { href: href({ sort: sortOrderOf(DEFAULT_SORT, model), offset: 0 }) }, 'Show them newest first'),
          '.',
        )
    : filtering
      ? h('p', { class: 'empty' }, 'No records match the filter.')
      : h(
          'p',
          { class: 'empty' },
          'No records yet. ',
          canWrite
            ? [
                h('a', { href: recordHref('new') }, 'Add one'),
                ' or ',
                h('a', { href: `#/models/${model.id}/import` }, 'import a CSV'),
                '.',
              ]
            : null,
        );
  const table =
    page.total === 0
      ? empty
      : h(
          'div',
          { class: 'table-scroll' },
          h(
            'table',
            { class: 'table records' },
            h(
              'caption',
              { class: 'visually-hidden' },
              `Records of ${model.name}${filter ? ', filtered' : ''}, by ${columnLabel(order.column).toLowerCase()}, ${directionText(order.column, order.descending)}`,
            ),
            h(
              'thead',
              null,
              h(
                'tr',
                null,
                canWrite ? h('th', { scope: 'col', class: 'select' }, selectAll) : null,
                fieldHeader(display),
                others.map((field) => fieldHeader(field, field.type === 'number' ? 'num' : null)),
                columnHeader('Created', 'createdAt'),
                columnHeader('Updated', 'updatedAt'),
                h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Actions')),
              ),
            ),
            h('tbody', null, rows),
          ),
        );

  selectionChanged();
  const report = bulkReport?.modelId === model.id ? bulkReportBox(bulkReport.outcome) : null;
  bulkReport = null;

  const exportStatus = h('span', { class: 'export-status', 'aria-live': 'polite' });
  const exportButtons: HTMLButtonElement[] = [];
  const exportView = async (format: ExportFormat) => {
    errors.clear();
    for (const control of exportButtons) control.disabled = true;
    exportStatus.textContent = 'Exporting…';
    try {
      const records = await readView({ modelId: model.id, sort: sortParam(order), filter }, (read, total) => {
        exportStatus.textContent = `Exporting… ${read.toLocaleString()} of ${total.toLocaleString()}`;
      });
      if (format === 'csv') download(exportFileName(model, 'csv'), recordsCsv(model, records), 'text/csv');
      else download(exportFileName(model, 'json'), recordsJson(records), 'application/json');
      exportStatus.textContent = `Exported ${recordCount(records.length)}.`;
    } catch (error) {
      exportStatus.textContent = '';
      errors.show(error, 'The export stopped.');
    } finally {
      for (const control of exportButtons) control.disabled = false;
    }
  };
  exportButtons.push(
    button('Export CSV', () => exportView('csv')),
    button('Export JSON', () => exportView('json')),
  );
  const tools =
    page.total > 0
      ? h(
          'div',
          { class: 'records-tools' },
          canWrite ? h('div', { class: 'selection-tools' }, selectionStatus, deleteSelectedButton) : null,
          h(
            'div',
            { class: 'export-tools' },
            h('span', { class: 'muted' }, `${filter ? 'Filtered view' : 'All records'}, ${page.total.toLocaleString()}:`),
            exportButtons,
            exportStatus,
          ),
        )
      : null;

  replaceChildren(
    ctx.main,
    h('p', { class: 'breadcrumbs' }, h('a', { href: '#/models' }, 'Models'), ' / ', model.name),
    pageHeader(
      model.name,
      canWrite ? linkButton('New record', recordHref('new'), { class: 'button button-primary' }) : null,
      canWrite ? linkButton('Import CSV', `#/models/${model.id}/import`) : null,
      mayChangeModels(ctx.workspace.role) ? linkButton('Edit model', `#/models/${model.id}/edit`) : null,
    ),
    errors.element,
    report,
    bar,
    tools,
    table,
    page.total > 0 ? recordsPager({ page, limit, offset, href, navigate: (hash) => ctx.navigate(hash) }) : null,
  );
  const first = page.total === 0 ? 0 : offset + 1;
  const last = offset + page.items.length;
  announce(
    page.total === 0
      ? filtering
        ? 'No records match the filter'
        : 'No records'
      : `Records ${first} to ${last} of ${page.total}`,
  );
}
