// Create or edit one record with a form generated from the model's fields. A new record is sent with
// `record.create`; an edit sends only what changed, as a merge patch (`record.patch`), so a concurrent change
// of another field is kept. The server's `<field>: <reason>` messages are shown next to the field they name.
// Saving, cancelling and deleting return to the records list in the view (filter, sort, page) the form was opened
// from, which its URL carries (records-view.ts).
import { ApiError, gql } from './api.js';
import { h, replaceChildren } from './dom.js';
import { listModels, MODEL_SELECTION } from './models-cache.js';
import type { PageContext } from './page.js';
import { widgetFor, type Widget } from './record-fields.js';
import { recordName } from './record-names.js';
import { deleteRecord } from './page-records.js';
import { recordsListHref, recordsViewOf } from './records-view.js';
import { mayWriteRecords, type JsonObject, type ModelDefinition, type ModelRecord } from './types.js';
import { alertBox, button, errorArea, linkButton, noticeBox, pageHeader, type FieldRow } from './ui.js';
import { formatDateTime, mergePatch, pathPrefixes, splitFieldMessage } from './values.js';

export async function renderRecordForm(ctx: PageContext): Promise<void> {
  const modelId = ctx.params.modelId!;
  const recordId = ctx.params.recordId;
  const listHref = recordsListHref(modelId, recordsViewOf(ctx.query));
  const [modelData, recordData, models] = await Promise.all([
    gql<{ model: { get: ModelDefinition | null }; workspace: { current: { defaultLocale: string } } }>(
      `query AdminModel($id: ID!) { model { get(id: $id) { ${MODEL_SELECTION} } } workspace { current { defaultLocale } } }`,
      { id: modelId },
    ),
    recordId
      ? gql<{ record: { get: ModelRecord | null } }>(
          'query AdminRecord($id: ID!) { record { get(id: $id) { id data createdAt updatedAt } } }',
          { id: recordId },
        )
      : Promise.resolve(null),
    listModels(),
  ]);
  if (!ctx.isCurrent()) return;
  const model = modelData.model.get;
  const record = recordData?.record.get ?? null;
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

  const errors = errorArea();
  const notices = h('div');
  const rows = new Map<string, FieldRow>();
  const widgetContext = {
    models,
    defaultLocale: modelData.workspace.current.defaultLocale,
    disabled: !canWrite,
    register: (path: string, row: FieldRow) => {
      rows.set(path, row);
    },
  };
  const widgets: { key: string; widget: Widget }[] = model.fields.map((field) => ({
    key: field.key,
    widget: widgetFor(field, record?.data[field.key], field.key, widgetContext),
  }));

  // The summary above the form, while it is about the messages shown at the fields, follows them: an edit that
  // takes one away (ui.ts errorSlot) takes it out of the summary, and the last one takes the summary.
  let fieldSummary: { title: string; text: string } | null = null;
  const fieldMessages = () =>
    [...rows].flatMap(([path, row]) => {
      const message = row.error();
      if (message === null) return [];
      return [splitFieldMessage(message) ? message : `${path}: ${message}`];
    });
  const followFieldErrors = () => {
    if (!fieldSummary) return;
    const text = fieldMessages().join('; ');
    if (text === fieldSummary.text) return;
    if (text === '') {
      fieldSummary = null;
      errors.clear();
      return;
    }
    fieldSummary.text = text;
    errors.show(text, fieldSummary.title);
  };

  // "Nothing changed." is about the values as they were at submit: an edit makes it untrue.
  const afterEdit = () => {
    notices.replaceChildren();
    followFieldErrors();
  };

  const clearErrors = () => {
    errors.clear();
    fieldSummary = null;
    notices.replaceChildren();
    for (const row of rows.values()) row.setError(null);
  };

  /** Shows `<path>: <reason>` next to the field the path names; true when a field was found. */
  const showAtField = (message: string): boolean => {
    const named = splitFieldMessage(message);
    if (!named) return false;
    for (const path of pathPrefixes(named.path)) {
      const row = rows.get(path);
      if (row) {
        row.setError(path === named.path ? named.reason : message);
        return true;
      }
    }
    return false;
  };

  const focusFirstError = () => {
    const invalid = form.querySelector<HTMLElement>('[aria-invalid="true"]');
    const target = invalid?.matches('fieldset') ? invalid.querySelector<HTMLElement>('input, select, textarea') : invalid;
    target?.focus();
  };

  const submit = h('button', { type: 'submit', class: 'button button-primary' }, record ? 'Save changes' : 'Create record');
  const form: HTMLFormElement = h(
    'form',
    {
      class: 'record-form',
      novalidate: true,
      oninput: afterEdit,
      onchange: afterEdit,
      onsubmit: async (event: Event) => {
        event.preventDefault();
        clearErrors();
        const data: JsonObject = {};
        let problems = false;
        for (const { key, widget } of widgets) {
          const result = widget.read();
          if (result.problem) {
            problems = true;
            if (!result.shown) widget.row.setError(result.problem);
          } else if (result.value !== undefined) {
            data[key] = result.value;
          }
        }
        if (problems) {
          fieldSummary = { title: 'Please correct the fields marked below.', text: fieldMessages().join('; ') };
          errors.show(fieldSummary.text, fieldSummary.title);
          focusFirstError();
          return;
        }
        submit.disabled = true;
        try {
          if (record) {
            const patch = mergePatch(record.data, data);
            if (Object.keys(patch).length === 0) {
              notices.replaceChildren(noticeBox('Nothing changed.'));
              return;
            }
            await gql('mutation PatchRecord($input: PatchModelRecordInput!) { record { patch(input: $input) { id } } }', {
              input: { id: record.id, data: patch },
            });
            ctx.flash(`${recordName(model, { ...record, data: { ...record.data, ...data } })} saved.`);
          } else {
            const created = await gql<{ record: { create: ModelRecord } }>(
              'mutation CreateRecord($input: CreateModelRecordInput!) { record { create(input: $input) { id data createdAt updatedAt } } }',
              { input: { modelId: model.id, data } },
            );
            ctx.flash(`${recordName(model, created.record.create)} created.`);
          }
          ctx.navigate(listHref);
        } catch (error) {
          const placed =
            error instanceof ApiError &&
            (error.code === 'BAD_USER_INPUT' || error.code === 'CONFLICT') &&
            showAtField(error.message);
          const title = record ? 'The record was not saved.' : 'The record was not created.';
          errors.show(error, title);
          if (placed) {
            fieldSummary = { title, text: fieldMessages().join('; ') };
            focusFirstError();
          }
        } finally {
          submit.disabled = false;
        }
      },
    },
    errors.element,
    notices,
    h(
      'fieldset',
      { class: 'plain', disabled: !canWrite },
      widgets.map(({ widget }) => widget.row.element),
    ),
    canWrite
      ? h(
          'div',
          { class: 'form-actions' },
          submit,
          linkButton('Cancel', listHref),
          record
            ? button(
                'Delete record',
                async () => {
                  clearErrors();
                  if (await deleteRecord(model, record, (error) => errors.show(error, 'The record was not deleted.'))) {
                    ctx.flash(`${recordName(model, record)} deleted.`);
                    ctx.navigate(listHref);
                  }
                },
                { class: 'button button-danger push-right' },
              )
            : null,
        )
      : h('p', null, linkButton('Back', listHref)),
  );

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
    record
      ? h(
          'dl',
          { class: 'meta' },
          h('dt', null, 'Id'),
          h('dd', null, h('code', null, record.id)),
          h('dt', null, 'Created'),
          h('dd', null, formatDateTime(record.createdAt)),
          h('dt', null, 'Updated'),
          h('dd', null, formatDateTime(record.updatedAt)),
        )
      : null,
    form,
  );
}
