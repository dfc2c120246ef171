// Create or edit one record with a form generated from the model's fields. A new record is sent with
// `record.create`; an edit sends only what changed, as a merge patch (`record.patch`), so a concurrent change
// of another field is kept. The server's `<field>: <reason>` messages are shown next to the field they name.
// Saving, cancelling and deleting return to the records list in the view (filter, sort, page) the form was opened
// from, which its URL carries (records-view.ts).
// The form's state is record-form-state.ts, its calls record-form-api.ts. An existing record's form ends with its
// History (record-history.ts): its revisions, a comparison of one with the current data, and restoring one. A record
// of a model with drafts shows its status, and writers get Publish, Unpublish, Discard changes and Schedule
// (record-publish.ts).
import { ApiError } from './api.js';
import { h, replaceChildren } from './dom.js';
import type { PageContext } from './page.js';
import { createRecordCall, loadRecordForm, patchRecordCall } from './record-form-api.js';
import { historyPanel } from './record-history.js';
import { publishTools, scheduleGroup, statusFacts } from './record-publish.js';
import { collectData, fieldForMessage, fieldMessages, followSummary, mayNameField, savePlan } from './record-form-state.js';
import { widgetFor, type Widget } from './record-fields.js';
import { recordName } from './record-names.js';
import { deleteRecord } from './records-delete.js';
import { recordsListHref, recordsViewOf } from './records-view.js';
import { mayWriteRecords, type ModelDefinition, type ModelRecord } from './types.js';
import { alertBox, button, errorArea, linkButton, noticeBox, pageHeader, type FieldRow } from './ui.js';
import { formatDateTime } from './values.js';

/** The messages of the form: the error area above it, its notices, and the error slots of its fields by path. */
function formMessages() {
  const errors = errorArea();
  const notices = h('div');
  const rows = new Map<string, FieldRow>();
  // The summary above the form, while it is about the messages shown at the fields, follows them: an edit that
  // takes one away (ui.ts errorSlot) takes it out of the summary, and the last one takes the summary.
  let fieldSummary: { title: string; text: string } | null = null;
  const atFields = () => fieldMessages([...rows].map(([path, row]): [string, string | null] => [path, row.error()]));
  return {
    errors,
    notices,
    register: (path: string, row: FieldRow) => {
      rows.set(path, row);
    },
    /** Puts the summary of the field messages above the form, with `title`; shown now when `show`. */
    summarize(title: string, show: boolean) {
      fieldSummary = { title, text: atFields().join('; ') };
      if (show) errors.show(fieldSummary.text, fieldSummary.title);
    },
    // "Nothing changed." is about the values as they were at submit: an edit makes it untrue.
    afterEdit() {
      notices.replaceChildren();
      if (!fieldSummary) return;
      const update = followSummary(fieldSummary.text, atFields());
      if (update.kind === 'clear') {
        fieldSummary = null;
        errors.clear();
      } else if (update.kind === 'show') {
        fieldSummary.text = update.text;
        errors.show(update.text, fieldSummary.title);
      }
    },
    clear() {
      errors.clear();
      fieldSummary = null;
      notices.replaceChildren();
      for (const row of rows.values()) row.setError(null);
    },
    /** Shows `<path>: <reason>` next to the field the path names; true when a field was found. */
    showAtField(message: string): boolean {
      const target = fieldForMessage(message, new Set(rows.keys()));
      if (!target) return false;
      rows.get(target.path)!.setError(target.text);
      return true;
    },
  };
}

type FormMessages = ReturnType<typeof formMessages>;

interface RecordFormPage {
  ctx: PageContext;
  model: ModelDefinition;
  record: ModelRecord | null;
  listHref: string;
  widgets: { key: string; widget: Widget }[];
  messages: FormMessages;
}

function focusFirstError(form: HTMLFormElement): void {
  const invalid = form.querySelector<HTMLElement>('[aria-invalid="true"]');
  const target = invalid?.matches('fieldset') ? invalid.querySelector<HTMLElement>('input, select, textarea') : invalid;
  target?.focus();
}

async function save(page: RecordFormPage, form: HTMLFormElement, submit: HTMLButtonElement): Promise<void> {
  const { ctx, model, record, messages, widgets } = page;
  messages.clear();
  const read = collectData(widgets.map(({ key, widget }) => ({ key, read: widget.read() })));
  for (const { key, problem } of read.toShow) widgets.find((entry) => entry.key === key)!.widget.row.setError(problem);
  if (read.hasProblems) {
    messages.summarize('Please correct the fields marked below.', true);
    focusFirstError(form);
    return;
  }
  const { data } = read;
  submit.disabled = true;
  try {
    const plan = savePlan(record?.data ?? null, data);
    if (plan.kind === 'unchanged') {
      messages.notices.replaceChildren(noticeBox('Nothing changed.'));
      return;
    }
    if (plan.kind === 'patch' && record) {
      await patchRecordCall(record.id, plan.patch);
      ctx.flash(`${recordName(model, { ...record, data: { ...record.data, ...data } })} saved.`);
    } else {
      const created = await createRecordCall(model.id, data);
      ctx.flash(`${recordName(model, created)} created.`);
    }
    ctx.navigate(page.listHref);
  } catch (error) {
    const placed = error instanceof ApiError && mayNameField(error.code) && messages.showAtField(error.message);
    const title = record ? 'The record was not saved.' : 'The record was not created.';
    messages.errors.show(error, title);
    if (placed) {
      messages.summarize(title, false);
      focusFirstError(form);
    }
  } finally {
    submit.disabled = false;
  }
}

function formActions(page: RecordFormPage, submit: HTMLButtonElement): HTMLElement {
  const { ctx, model, record, listHref, messages } = page;
  return h(
    'div',
    { class: 'form-actions' },
    submit,
    linkButton('Cancel', listHref),
    record
      ? button(
          'Delete record',
          async () => {
            messages.clear();
            if (await deleteRecord(model, record, (error) => messages.errors.show(error, 'The record was not deleted.'))) {
              ctx.flash(`${recordName(model, record)} deleted.`);
              ctx.navigate(listHref);
            }
          },
          { class: 'button button-danger push-right' },
        )
      : null,
  );
}

function recordFormElement(page: RecordFormPage, canWrite: boolean): HTMLFormElement {
  const { record, messages } = page;
  const submit = h('button', { type: 'submit', class: 'button button-primary' }, record ? 'Save changes' : 'Create record');
  const afterEdit = () => messages.afterEdit();
  const form: HTMLFormElement = h(
    'form',
    {
      class: 'record-form',
      novalidate: true,
      oninput: afterEdit,
      onchange: afterEdit,
      onsubmit: async (event: Event) => {
        event.preventDefault();
        await save(page, form, submit);
      },
    },
    messages.errors.element,
    messages.notices,
    h(
      'fieldset',
      { class: 'plain', disabled: !canWrite },
      page.widgets.map(({ widget }) => widget.row.element),
    ),
    canWrite ? formActions(page, submit) : h('p', null, linkButton('Back', page.listHref)),
  );
  return form;
}

function recordMeta(model: ModelDefinition, record: ModelRecord): HTMLElement {
  return h(
    'dl',
    { class: 'meta' },
    h('dt', null, 'Id'),
    h('dd', null, h('code', null, record.id)),
    h('dt', null, 'Created'),
    h('dd', null, formatDateTime(record.createdAt)),
    h('dt', null, 'Updated'),
    h('dd', null, formatDateTime(record.updatedAt)),
    model.drafts ? statusFacts(record) : null,
  );
}

export async function renderRecordForm(ctx: PageContext): Promise<void> {
  const modelId = ctx.params.modelId!;
  const recordId = ctx.params.recordId;
  const listHref = recordsListHref(modelId, recordsViewOf(ctx.query));
  const loaded = await loadRecordForm(modelId, recordId);
  if (!ctx.isCurrent()) return;
  const { model, record } = loaded;
  if (!model || (recordId && !record)) {
    ctx.setTitle('Not found');
    replaceChildren(
      ctx.main,
      pageHeader(model ? 'Record not found' : 'Model not found'),
      alertBox(model ? 'This record does not exist (any more).' : 'This model does not exist in this workspace (any more).'),
      h('p', null, h('a', { href: model ? listHref : '#/models' }, 'Back')),
    );
    return;
  }
  const canWrite = mayWriteRecords(ctx.workspace.role);
  const title = record ? `${canWrite ? 'Edit' : 'View'} ${recordName(model, record)}` : `New ${model.name} record`;
  ctx.setTitle(title);
  const messages = formMessages();
  const widgetContext = {
    models: loaded.models,
    defaultLocale: loaded.defaultLocale,
    disabled: !canWrite,
    register: messages.register,
  };
  const widgets = model.fields.map((field) => ({
    key: field.key,
    widget: widgetFor(field, record?.data[field.key], field.key, widgetContext),
  }));
  const form = recordFormElement({ ctx, model, record, listHref, widgets, messages }, canWrite);
  const history = record ? historyPanel({ ctx, model, record, canWrite }) : null;
  replaceChildren(
    ctx.main,
    h(
      'p',
      { class: 'breadcrumbs' },
      h('a', { href: '#/models' }, 'Models'),
      ' / ',
      h('a', { href: listHref }, model.name),
      ' / ',
      record ? recordName(model, record) : 'New record',
    ),
    pageHeader(title),
    record ? recordMeta(model, record) : null,
    record && model.drafts ? publishTools(ctx, model, record, canWrite) : null,
    record && model.drafts ? scheduleGroup(model, record, canWrite) : null,
    form,
    history?.element,
  );
  await history?.load();
}
