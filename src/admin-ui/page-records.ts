// The records of one model: a table paged by the server (limit and offset, `total` from the API), filtered by the
// filter bar and sorted by any sortable column (record.list `filter` and `sort`, delivery.md), the display field
// first. Filter, sort and page live in the URL, and the record form's links carry them back (records-view.ts). One
// GraphQL request per page (two when the server refuses the filter), besides the model list read once (models-cache).
// A model with drafts has a status column and filter (`status` in the URL), and Publish / Unpublish of the selected
// rows (records-selection.ts, records-publish.ts).
// The page's state is records-state.ts, its calls records-api.ts, its table records-table.ts.
import { h, replaceChildren } from './dom.js';
import { filterBar } from './filter-bar.js';
import { listModels } from './models-cache.js';
import type { PageContext } from './page.js';
import { sortOrderOf, sortParam } from './record-sort.js';
import { loadRecords, type LoadedRecords } from './records-api.js';
import { loadCellAssets } from './records-media.js';
import { deleteRecord } from './records-delete.js';
import { exportFileName, readView, recordsCsv, recordsJson, type ExportFormat } from './records-export.js';
import { recordsPager } from './records-pager.js';
import { linkedRecordsNote } from './records-publish.js';
import { selectionControls, takeBulkReport } from './records-selection.js';
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
  type RecordsQuery,
} from './records-state.js';
import { statusFilter } from './record-status.js';
import { emptyRecords, recordsTable, type RecordsTableView } from './records-table.js';
import { recordFormHref, recordsViewOf } from './records-view.js';
import { mayChangeModels, mayWriteRecords, type ModelDefinition, type ModelRecord } from './types.js';
import { alertBox, announce, button, download, errorArea, linkButton, pageHeader, type ErrorArea } from './ui.js';
import { displayFieldOf, preferredLocales, recordName } from './record-names.js';

function modelNotFound(ctx: PageContext): void {
  ctx.setTitle('Model not found');
  replaceChildren(
    ctx.main,
    pageHeader('Model not found'),
    alertBox('This model does not exist in this workspace (any more).'),
    h('p', null, h('a', { href: '#/models' }, 'Back to the models')),
  );
}

/** The export of the whole (filtered) view as CSV or JSON. */
function exportTools(view: RecordsTableView, errors: ErrorArea): HTMLElement {
  const { model, filter } = view;
  const filtered = filter !== undefined || view.status !== undefined;
  const status = h('span', { class: 'export-status', 'aria-live': 'polite' });
  const buttons: HTMLButtonElement[] = [];
  const exportView = async (format: ExportFormat) => {
    errors.clear();
    for (const control of buttons) control.disabled = true;
    status.textContent = 'Exporting…';
    try {
      const records = await readView(
        { modelId: model.id, sort: sortParam(view.order), filter, status: view.status },
        (read, total) => {
          status.textContent = `Exporting… ${read.toLocaleString()} of ${total.toLocaleString()}`;
        },
      );
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
    h('span', { class: 'muted' }, `${filtered ? 'Filtered view' : 'All records'}, ${view.page.total.toLocaleString()}:`),
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
    status: query.status,
    canWrite: mayWriteRecords(ctx.workspace.role),
    locales: preferredLocales(),
    display,
    others: otherColumns(model, display),
    href: (next) =>
      recordsHref(
        model.id,
        { limit: query.limit, offset: query.offset, order, filter: query.filter, status: query.status },
        next,
      ),
    recordHref: (recordId) => recordFormHref(model.id, recordId, returnView),
  };
}

export async function renderRecords(ctx: PageContext): Promise<void> {
  const modelId = ctx.params.modelId!;
  const query = parseRecordsQuery(ctx.query);
  const { limit, offset, filter } = query;
  // The workspace's models (cached) for the filter bar's relation conditions; without them ids are typed.
  const [loaded, models] = await Promise.all([
    loadRecords(modelId, { limit, offset, sort: query.sortText, filter, status: query.status }),
    listModels().catch((): ModelDefinition[] => []),
  ]);
  if (!ctx.isCurrent()) return;
  if (!loaded) return modelNotFound(ctx);
  const view = tableView(ctx, loaded, query);
  const { model, page, canWrite, locales, href } = view;
  if (view.others.some((field) => field.type === 'media')) {
    view.assets = await loadCellAssets(page, view.others);
    if (!ctx.isCurrent()) return;
  }
  ctx.setTitle(`${model.name} records`);
  // A page past the end (its last records deleted, here or on the record form) gives way to the last page, in
  // place of this address, so that Back does not come here again.
  const lastPage = pastEndOffset(page, offset, limit);
  if (lastPage !== null) return ctx.redirect(href({ offset: lastPage }));
  // A status filter only means something for a model with drafts (every other record is published).
  if (query.status && !model.drafts) return ctx.redirect(href({ status: null, offset: 0 }));
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
  const report = takeBulkReport(model.id);
  const linked = model.drafts ? linkedRecordsNote(ctx, model.id, () => href({})) : null;
  const byStatus =
    model.drafts && (page.total > 0 || query.status)
      ? statusFilter(query.status, (status) => ctx.navigate(href({ status, offset: 0 })))
      : null;
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
    linked,
    byStatus,
    bar,
    tools,
    table,
    page.total > 0 ? recordsPager({ page, limit, offset, href, navigate: (hash) => ctx.navigate(hash) }) : null,
  );
  announce(recordsAnnouncement(page, offset, filtering));
}
