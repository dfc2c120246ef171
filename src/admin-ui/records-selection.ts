// The records table's selection: a box per row and one for the page, the line that says how many are selected, and
// what acts on them: Delete selected (records-bulk-delete.ts), and for a model with drafts Publish selected,
// Unpublish selected, Schedule publish… and Schedule unpublish… (records-publish.ts). A delete renders the page again
// with a report of what was not deleted.
import { h } from './dom.js';
import type { PageContext } from './page.js';
import { deleteSelected, type BulkDeleteOutcome } from './records-bulk-delete.js';
import { bulkReportBox, confirmBulkDelete } from './records-delete.js';
import { bulkPublishButtons, bulkScheduleTools } from './records-publish.js';
import {
  offsetAfterDelete,
  recordCount,
  selectionSummary,
  toggleAll,
  toggleRecord,
  type RecordsQuery,
  type Selection,
} from './records-state.js';
import type { RecordsTableView } from './records-table.js';
import { recordName } from './record-names.js';
import type { ModelRecord } from './types.js';
import { button, type ErrorArea } from './ui.js';

/** What a delete of selected records left to say on the page it re-renders (the failures stay until read). */
let bulkReport: { modelId: string; outcome: BulkDeleteOutcome } | null = null;

/** The report of the last delete of selected records of this model, once. */
export function takeBulkReport(modelId: string): HTMLElement | null {
  const report = bulkReport?.modelId === modelId ? bulkReportBox(bulkReport.outcome) : null;
  bulkReport = null;
  return report;
}

/** The selection boxes, the status beside them and the actions on the selected records. */
export function selectionControls(ctx: PageContext, view: RecordsTableView, query: RecordsQuery, errors: ErrorArea) {
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
  const selectedRecords = () => rowBoxes.filter(({ record }) => selected.has(record.id)).map(({ record }) => record);
  const publishing = model.drafts
    ? bulkPublishButtons({
        ctx,
        modelId: model.id,
        hereHref: () => view.href({}),
        errors,
        status,
        selected: selectedRecords,
        restore: () => changed(),
      })
    : null;
  const scheduling = model.drafts ? bulkScheduleTools({ errors, selected: selectedRecords }) : null;
  const changed = () => {
    const summary = selectionSummary(selected.size, rowBoxes.length);
    status.textContent = summary.status;
    deleteButton.disabled = summary.deleteDisabled;
    selectAll.checked = summary.allChecked;
    selectAll.indeterminate = summary.indeterminate;
    publishing?.update();
    scheduling?.setEnabled(selected.size > 0);
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
    const targets = selectedRecords().map((record) => ({ id: record.id, name: recordName(model, record) }));
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
  const tools = h(
    'div',
    { class: 'selection-area' },
    h('div', { class: 'selection-tools' }, status, publishing?.buttons, scheduling?.buttons, deleteButton),
    scheduling?.area,
  );
  return { selectAll, rowBox, changed, tools };
}
