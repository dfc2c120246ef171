// The record form of a model with drafts: the record's status (a badge and what is live, in the facts above the
// form) and, for writers, Publish, Unpublish and Discard changes (after a confirmation), each offered only when it
// applies (record-status-state.ts recordActions). They act on the record as saved; the form is shown again after
// each, with a message, and after a publish whose record links to records that are not published, a note that
// offers to publish those too. Beside them, for writers, Schedule publish… and Schedule unpublish… (schedule-form.ts),
// which act on the record as it is at the time chosen.
import { h } from './dom.js';
import type { PageContext } from './page.js';
import { discardChangesCall, publishCall } from './record-publish-api.js';
import { recordName } from './record-names.js';
import { publishedDetail, recordActions, type PublishAction } from './record-status-state.js';
import { rememberTargets, statusBadge } from './record-status.js';
import { linkedRecordsNote } from './records-publish.js';
import { scheduleTools } from './schedule-form.js';
import type { ModelDefinition, ModelRecord } from './types.js';
import { button, confirmDialog, errorArea, type ErrorArea } from './ui.js';
import { formatDateTime } from './values.js';

/** The status facts of the record form's list (`<dt>`, `<dd>`): the badge and what is live. */
export function statusFacts(record: ModelRecord): HTMLElement[] {
  return [
    h('dt', null, 'Status'),
    h(
      'dd',
      { class: 'record-status-facts' },
      statusBadge(record.status),
      ' ',
      h(
        'span',
        { class: 'muted' },
        publishedDetail(record, (iso) => formatDateTime(iso)),
      ),
    ),
  ];
}

interface ToolsContext {
  ctx: PageContext;
  model: ModelDefinition;
  record: ModelRecord;
  errors: ErrorArea;
}

const DONE: Record<PublishAction, string> = { publish: 'published', unpublish: 'unpublished' };

async function publishOrUnpublish(tools: ToolsContext, action: PublishAction, control: HTMLButtonElement): Promise<void> {
  const { ctx, model, record, errors } = tools;
  errors.clear();
  control.disabled = true;
  try {
    const result = await publishCall(action, [record.id]);
    if (!ctx.isCurrent()) return;
    rememberTargets(record.id, result.unpublishedTargets);
    ctx.flash(`${recordName(model, record)} ${DONE[action]}.`);
    ctx.navigate(location.hash);
  } catch (error) {
    errors.show(error, `The record was not ${DONE[action]}.`);
  } finally {
    control.disabled = false;
  }
}

async function discard(tools: ToolsContext, control: HTMLButtonElement): Promise<void> {
  const { ctx, model, record, errors } = tools;
  errors.clear();
  const name = recordName(model, record);
  const live = record.publishedRevision ? ` (revision ${record.publishedRevision})` : '';
  const confirmed = await confirmDialog({
    title: `Discard the changes to ${name}?`,
    message: [
      h('p', null, `${name} gets its published data${live} again, as a new revision. The changes stay in the history.`),
      h('p', null, 'Changes not saved in the form are lost too.'),
    ],
    confirmLabel: 'Discard changes',
    danger: true,
  });
  if (!confirmed) return;
  control.disabled = true;
  try {
    const discarded = await discardChangesCall(record.id);
    if (!ctx.isCurrent()) return;
    ctx.flash(`The changes to ${recordName(model, { ...record, data: discarded.data })} were discarded.`);
    ctx.navigate(location.hash);
  } catch (error) {
    errors.show(error, 'The changes were not discarded.');
  } finally {
    control.disabled = false;
  }
}

/** Publish, Unpublish and Discard changes for a writer (null for anyone else), with their messages. */
export function publishTools(
  ctx: PageContext,
  model: ModelDefinition,
  record: ModelRecord,
  canWrite: boolean,
): HTMLElement | null {
  const actions = recordActions(record.status, canWrite);
  if (!actions.publish && !actions.unpublish && !actions.discard) return null;
  const tools: ToolsContext = { ctx, model, record, errors: errorArea() };
  const control = (label: string, run: (target: HTMLButtonElement) => Promise<void>, className = 'button') =>
    button(label, (event) => run(event.currentTarget as HTMLButtonElement), { class: className });
  return h(
    'div',
    { class: 'publish-tools', role: 'group', 'aria-label': 'Publishing' },
    tools.errors.element,
    linkedRecordsNote(ctx, record.id, () => location.hash),
    h(
      'div',
      { class: 'form-actions' },
      actions.publish
        ? control('Publish', (target) => publishOrUnpublish(tools, 'publish', target), 'button button-primary')
        : null,
      actions.unpublish ? control('Unpublish', (target) => publishOrUnpublish(tools, 'unpublish', target)) : null,
      actions.discard ? control('Discard changes', (target) => discard(tools, target), 'button button-danger') : null,
      h('span', { class: 'muted small' }, 'These act on the record as saved.'),
    ),
  );
}

/** Schedule publish… and Schedule unpublish… for a writer (null for anyone else), with the form they open. */
export function scheduleGroup(model: ModelDefinition, record: ModelRecord, canWrite: boolean): HTMLElement | null {
  if (!canWrite) return null;
  const errors = errorArea();
  const scheduling = scheduleTools({ ids: () => [record.id], subject: () => recordName(model, record), errors });
  return h(
    'div',
    { class: 'schedule-tools', role: 'group', 'aria-label': 'Scheduling' },
    errors.element,
    h(
      'div',
      { class: 'form-actions' },
      scheduling.buttons,
      h('span', { class: 'muted small' }, 'A schedule acts on the record as it is then.'),
    ),
    scheduling.area,
  );
}
