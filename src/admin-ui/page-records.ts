// The records of one model: a table paged by the server (limit and offset, `total` from the API), filtered by the
// filter bar and sorted by any sortable column (record.list `filter` and `sort`, delivery.md), the display field
// first. Filter, sort and page live in the URL, and the record form's links carry them back (records-view.ts). One
// GraphQL request per page (two when the server refuses the filter), besides the model list read once (models-cache).
// The page's state is records-state.ts, its calls records-api.ts, its table records-table.ts.
import { h, replaceChildren } from './dom.js';
import { filterBar } from './filter-bar.js';
import { listModels } from './models-cache.js';
import type { PageContext } from './page.js';
import { sortOrderOf, sortParam } from './record-sort.js';
import { loadRecords, type LoadedRecords } from './records-api.js';
import { deleteSelected, type BulkDeleteOutcome } from './records-bulk-delete.js';
import { bulkReportBox, confirmBulkDelete, deleteRecord } from './records-delete.js';
import { exportFileName, readView, recordsCsv, recordsJson, type ExportFormat } from './records-export.js';
import { recordsPager } from './records-pager.js';
import {
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
  type RecordsQuery,
  type Selection,
} from './records-state.js';
import { emptyRecords, recordsTable, type RecordsTableView } from './records-table.js';
import { recordFormHref, recordsViewOf } from './records-view.js';
import { mayChangeModels, mayWriteRecords, type ModelDefinition, type ModelRecord } from './types.js';
import { alertBox, announce, button, download, errorArea, linkButton, pageHeader, type ErrorArea } from './ui.js';
import { displayFieldOf, preferredLocales, recordName } from './record-names.js';

/** What a delete of selected records left to say on the page it re-renders (the failures stay until read). */
let bulkReport: { modelId: string; outcome: BulkDeleteOutcome } | null = null;

function modelNotFound(ctx: PageContext): void {
  ctx.setTitle('Model not found');
  replaceChildren(
    ctx.main,
    pageHeader('Model not found'),
    alertBox('This model does not exist in this workspace (any more).'),
    h('p', null, h('a', { href: '#/models' }, 'Back to the models')),
  );
}

/** The selection boxes, the status beside them and the delete of the selected records. */
function selectionControls(ctx: PageContext, view: RecordsTableView, query: RecordsQuery, errors: ErrorArea) {
  const { model, page } = view;
  let selected: Selection = new Set<string>();
  const rowBoxes: { record: ModelRecord; box: HTMLInputElement }[] = [];
  const status = h('span', { class: 'selection-status', 'aria-live': 'polite' });
  const selectAll: HTMLInputElement = h('input', {
    type: 'checkbox',
    class: 'select-all',
    'aria-label': 'Select all records on this page',
    onchange: () => {
      for (const { box } of rowBoxes) box.checked = selectAll.checked;
      selected = toggleAll(
        selected,
        rowBoxes.map(({ record }) => record.id),
        selectAll.checked,
      );
      changed();
    },
  });
  const deleteButton = button('Delete selected', () => deleteChosen(), { class: 'button button-danger', disabled: true });
  const changed = () => {
    const summary = selectionSummary(selected.size, rowBoxes.length);
    status.textContent = summary.status;
    deleteButton.disabled = summary.deleteDisabled;
    selectAll.checked = summary.allChecked;
    selectAll.indeterminate = summary.indeterminate;
  };
  const rowBox = (record: ModelRecord) => {
    const box: HTMLInputElement = h('input', {
      type: 'checkbox',
      'aria-label': `Select ${recordName(model, record)}`,
      onchange: () => {
        selected = toggleRecord(selected, record.id, box.checked);
        changed();
      },
    });
    rowBoxes.push({ record, box });
    return box;
  };
  const deleteChosen = async () => {
    const targets = rowBoxes
      .filter(({ record }) => selected.has(record.id))
      .map(({ record }) => ({ id: record.id, name: recordName(model, record) }));
    if (targets.length === 0) return;
    errors.clear();
    if (!(await confirmBulkDelete(model, targets))) return;
    deleteButton.disabled = true;
    const outcome = await deleteSelected(targets, {
      onProgress: (done, total) => {
        status.textContent = `Deleting… ${done} of ${total}`;
      },
      onWait: (seconds) => {
        status.textContent = `Waiting ${seconds} s for the write budget…`;
      },
    });
    if (!ctx.isCurrent()) return;
    if (outcome.deleted.length > 0) ctx.flash(`${recordCount(outcome.deleted.length)} deleted.`);
    bulkReport = { modelId: model.id, outcome };
    const offset = offsetAfterDelete(outcome.deleted.length, page.items.length, query.offset, query.limit);
    ctx.navigate(view.href({ offset }));
  };
  return { selectAll, rowBox, changed, tools: h('div', { class: 'selection-tools' }, status, deleteButton) };
}

/** The export of the whole (filtered) view as CSV or JSON. */
function exportTools(view: RecordsTableView, errors: ErrorArea): HTMLElement {
  const { model, filter } = view;
  const status = h('span', { class: 'export-status', 'aria-live': 'polite' });
  const buttons: HTMLButtonElement[] = [];
  const exportView = async (format: ExportFormat) => {
    errors.clear();
    for (const control of buttons) control.disabled = true;
    status.textContent = 'Exporting…';
    try {
      const records = await readView({ modelId: model.id, sort: sortParam(view.order), filter }, (read, total) => {
        status.textContent = `Exporting… ${read.toLocaleString()} of ${total.toLocaleString()}`;
      });
      if (format === 'csv') download(exportFileName(model, 'csv'), recordsCsv(model, records), 'text/csv');
      else download(exportFileName(model, 'json'), recordsJson(records), 'application/json');
      status.textContent = `Exported ${recordCount(records.length)}.`;
    } catch (error) {
      status.textContent = '';
      errors.show(error, 'The export stopped.');
    } finally {
      for (const control of buttons) control.disabled = false;
    }
  };
  buttons.push(
    button('Export CSV', () => exportView('csv')),
    button('Export JSON', () => exportView('json')),
  );
  return h(
    'div',
    { class: 'export-tools' },
    h('span', { class: 'muted' }, `${filter ? 'Filtered view' : 'All records'}, ${view.page.total.toLocaleString()}:`),
    buttons,
    status,
  );
}

function tableView(ctx: PageContext, loaded: LoadedRecords, query: RecordsQuery): RecordsTableView {
  const { model, page } = loaded;
  const order = sortOrderOf(query.sortText, model);
  // The record form returns to this view (records-view.ts).
  const returnView = recordsViewOf(ctx.query);
  const display = displayFieldOf(model);
  return {
    model,
    page,
    order,
    filter: query.filter,
    canWrite: mayWriteRecords(ctx.workspace.role),
    locales: preferredLocales(),
    display,
    others: otherColumns(model, display),
    href: (next) => recordsHref(model.id, { limit: query.limit, offset: query.offset, order, filter: query.filter }, next),
    recordHref: (recordId) => recordFormHref(model.id, recordId, returnView),
  };
}

export async function renderRecords(ctx: PageContext): Promise<void> {
  const modelId = ctx.params.modelId!;
  const query = parseRecordsQuery(ctx.query);
  const { limit, offset, filter } = query;
  // The workspace's models (cached) for the filter bar's relation conditions; without them ids are typed.
  const [loaded, models] = await Promise.all([
    loadRecords(modelId, { limit, offset, sort: query.sortText, filter }),
    listModels().catch((): ModelDefinition[] => []),
  ]);
  if (!ctx.isCurrent()) return;
  if (!loaded) return modelNotFound(ctx);
  const view = tableView(ctx, loaded, query);
  const { model, page, canWrite, locales, href } = view;
  ctx.setTitle(`${model.name} records`);
  // A page past the end (its last records deleted, here or on the record form) gives way to the last page, in
  // place of this address, so that Back does not come here again.
  const lastPage = pastEndOffset(page, offset, limit);
  if (lastPage !== null) return ctx.redirect(href({ offset: lastPage }));
  const errors = errorArea();
  const selection = selectionControls(ctx, view, query, errors);
  const deleteOne = async (record: ModelRecord) => {
    errors.clear();
    const deleted = await deleteRecord(model, record, (error) => errors.show(error, 'The record was not deleted.'));
    if (deleted) {
      ctx.flash(`${recordName(model, record)} deleted.`);
      ctx.navigate(href({ offset: offsetAfterDelete(1, page.items.length, offset, limit) }));
    }
  };
  const filtering = isFiltering(query);
  const problem = filterProblem(loaded.refusal, query);
  const bar =
    filtering || page.total > 0
      ? filterBar({
          model,
          filter,
          defaultLocale: locales[0]?.split('-')[0] ?? 'en',
          models,
          apply: (next) => ctx.navigate(href({ filter: next ?? null, offset: 0 })),
          ...(problem !== undefined ? { problem } : {}),
        })
      : null;
  if (loaded.refusal && !loaded.refusal.startsWith('filter')) errors.show(new Error(loaded.refusal));
  const table =
    page.total === 0
      ? emptyRecords(view, emptyReason(loaded.refusal, filtering))
      : recordsTable(view, { selectAll: selection.selectAll, rowBox: selection.rowBox, onDelete: deleteOne });
  selection.changed();
  const report = bulkReport?.modelId === model.id ? bulkReportBox(bulkReport.outcome) : null;
  bulkReport = null;
  const tools =
    page.total > 0 ? h('div', { class: 'records-tools' }, canWrite ? selection.tools : null, exportTools(view, errors)) : null;
  replaceChildren(
    ctx.main,
    h('p', { class: 'breadcrumbs' }, h('a', { href: '#/models' }, 'Models'), ' / ', model.name),
    pageHeader(
      model.name,
      canWrite ? linkButton('New record', view.recordHref('new'), { class: 'button button-primary' }) : null,
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
  announce(recordsAnnouncement(page, offset, filtering));
}
