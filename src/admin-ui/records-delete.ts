// Deleting records from the records page: one record after confirmation (force offered when other records still
// point at it; the record form uses it too), the confirmation of a delete of the selected records, and the report
// of the ones that were not deleted.
import { h } from './dom.js';
import { deleteRecordCall, stillLinkedText } from './records-api.js';
import type { BulkDeleteOutcome } from './records-bulk-delete.js';
import { recordCount } from './records-state.js';
import { recordName } from './record-names.js';
import type { ModelDefinition, ModelRecord } from './types.js';
import { alertBox, confirmDialog, type ConfirmOptions } from './ui.js';

type DeleteStep = { outcome: 'cancelled' | 'deleted' } | { outcome: 'failed'; error: unknown };

/** Asks (as for a dangerous action), then deletes the record; forced, the links other records have to it go too. */
async function confirmThenDelete(question: Omit<ConfirmOptions, 'danger'>, id: string, force: boolean): Promise<DeleteStep> {
  if (!(await confirmDialog({ ...question, danger: true }))) return { outcome: 'cancelled' };
  try {
    await deleteRecordCall(id, force);
    return { outcome: 'deleted' };
  } catch (error) {
    return { outcome: 'failed', error };
  }
}

/** Deletes a record after confirmation; offers force when other records still point at it. True when deleted. */
export async function deleteRecord(
  model: ModelDefinition,
  record: ModelRecord,
  onError: (error: unknown) => void,
): Promise<boolean> {
  const name = recordName(model, record);
  const plain = await confirmThenDelete(
    {
      title: `Delete ${name}?`,
      message: h('p', null, `The record is deleted from ${model.name}. This cannot be undone.`),
      confirmLabel: 'Delete record',
    },
    record.id,
    false,
  );
  if (plain.outcome !== 'failed') return plain.outcome === 'deleted';
  const linked = stillLinkedText(plain.error);
  if (linked === null) {
    onError(plain.error);
    return false;
  }
  const forced = await confirmThenDelete(
    {
      title: `${name} is still linked`,
      message: [h('p', null, linked), h('p', null, 'Delete it anyway and remove those links from the other records?')],
      confirmLabel: 'Delete and remove links',
    },
    record.id,
    true,
  );
  if (forced.outcome === 'failed') onError(forced.error);
  return forced.outcome === 'deleted';
}

/** Asks before deleting the selected records, naming the first ten. */
export function confirmBulkDelete(model: ModelDefinition, targets: { name: string }[]): Promise<boolean> {
  return confirmDialog({
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
}

/** What a delete of selected records left to say: null when every record went. */
export function bulkReportBox(outcome: BulkDeleteOutcome): HTMLElement | null {
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
