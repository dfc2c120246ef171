// Create or edit a model: name, slug, description, delivery access, drafts, display field, product settings, and the
// field editor (every field type; relation target and kind; object sub-fields, nested).
import { h, replaceChildren } from './dom.js';
import { draftOf, modelInput, type Draft } from './model-draft.js';
import { renderFieldList } from './model-field-list.js';
import { ModelFormErrors } from './model-form-errors.js';
import { mustConfirmRemoval, relationTargetSlugs, removedFields } from './model-editor-state.js';
import { loadModel, saveModel } from './model-save.js';
import { deliveryAccessGroup, draftsRow, fieldSelects, productGroup } from './model-settings.js';
import { invalidateModels, listModels } from './models-cache.js';
import type { PageContext } from './page.js';
import { hasUnreadLevels, mayChangeModels, type ModelDefinition } from './types.js';
import { alertBox, confirmDialog, errorArea, group, input, labelled, linkButton, pageHeader } from './ui.js';
import { slugify } from './values.js';

export async function renderModelEditor(ctx: PageContext): Promise<void> {
  const modelId = ctx.params.modelId;
  const [model, models] = await Promise.all([modelId ? loadModel(modelId) : Promise.resolve(null), listModels()]);
  if (!ctx.isCurrent()) return;
  if (modelId && !model) {
    replaceChildren(
      ctx.main,
      pageHeader('Model not found'),
      alertBox('This model does not exist in this workspace (any more).'),
      h('p', null, h('a', { href: '#/models' }, 'Back to the models')),
    );
    return;
  }
  const title = model ? `Edit model ${model.name}` : 'New model';
  ctx.setTitle(title);
  if (model && hasUnreadLevels(model.fields)) {
    replaceChildren(
      ctx.main,
      pageHeader(title),
      alertBox('This model nests object fields deeper than the admin application reads; change it through the GraphQL API.'),
    );
    return;
  }
  const draft = draftOf(model);
  const errors = errorArea();
  const rowErrors = new ModelFormErrors();
  const { register } = rowErrors;

  const { name, slug, description } = nameControls(draft, model);
  const delivery = deliveryAccessGroup(draft, register);
  const drafts = draftsRow(draft, register);
  const selects = fieldSelects(draft);
  const product = productGroup(draft, selects, register);

  const fieldsGroup = fieldsSection(draft, model, models, register, selects.refresh);
  selects.refresh();

  // The error above the form is the one shown at a field: it goes when an edit takes that one away.
  let errorAtField = false;
  const followFieldErrors = () => {
    if (!errorAtField || rowErrors.showing()) return;
    errorAtField = false;
    errors.clear();
  };
  const submit = h('button', { type: 'submit', class: 'button button-primary' }, model ? 'Save model' : 'Create model');
  const form = h(
    'form',
    {
      class: 'model-form',
      novalidate: true,
      oninput: followFieldErrors,
      onchange: followFieldErrors,
      onsubmit: async (event: Event) => {
        event.preventDefault();
        errors.clear();
        rowErrors.clear();
        errorAtField = false;
        const toSave = modelInput(draft);
        if (model && !(await confirmRemovedFields(model, draft))) return;
        submit.disabled = true;
        try {
          const saved = await saveModel(model, toSave);
          invalidateModels();
          ctx.flash(model ? `Model ${saved.name} saved.` : `Model ${saved.name} created. Add its first record, or import a CSV.`);
          ctx.navigate(`#/models/${saved.id}/records`);
        } catch (error) {
          errors.show(error, model ? 'The model was not saved.' : 'The model was not created.');
          errorAtField = rowErrors.place(error, draft.fields);
        } finally {
          submit.disabled = false;
        }
      },
    },
    errors.element,
    h(
      'div',
      { class: 'form-columns' },
      register('name', labelled('Name', name, { required: true, hint: 'Shown to people, such as “Product”.' })).element,
      register(
        'slug',
        labelled('Slug', slug, {
          required: true,
          hint: model ? 'The slug cannot be changed.' : 'Used in the delivery API: a-z, 0-9, "-" and "_".',
        }),
      ).element,
    ),
    register('description', labelled('Description', description)).element,
    fieldsGroup.element,
    register(
      'displayField',
      labelled('Display field', selects.display, { hint: 'The field that names a record in tables and relation pickers.' }),
    ).element,
    product.element,
    delivery.element,
    drafts.element,
    h('div', { class: 'form-actions' }, submit, linkButton('Cancel', model ? `#/models/${model.id}/records` : '#/models')),
  );

  replaceChildren(
    ctx.main,
    pageHeader(title),
    mayChangeModels(ctx.workspace.role)
      ? null
      : alertBox(`Your role (${ctx.workspace.role}) may not change models; the server will refuse.`),
    form,
  );
}

/** The field editor of the model's fields, in its group. */
function fieldsSection(
  draft: Draft,
  model: ModelDefinition | null,
  models: readonly ModelDefinition[],
  register: ModelFormErrors['register'],
  onFieldsChanged: () => void,
) {
  const fieldsRoot = h('div', { class: 'field-list-root' });
  renderFieldList(
    {
      register,
      onFieldsChanged,
      relationTargets: () => relationTargetSlugs(models, model, draft.slug),
    },
    draft.fields,
    'fields',
    0,
    fieldsRoot,
  );
  return register(
    'fields',
    group('Fields', fieldsRoot, {
      hint: model
        ? 'A key is the name of the value in the API: letters, digits and _. Renaming or removing a field removes the values stored under its key.'
        : 'A key is the name of the value in the API: letters, digits and _ (it follows the label until you change it).',
    }),
  );
}

/** Name, slug (following the name on a new model until it is typed) and description. */
function nameControls(draft: Draft, model: ModelDefinition | null) {
  const name = input({ name: 'name', value: draft.name, autocomplete: 'off' });
  const slug = input({ name: 'slug', value: draft.slug, autocomplete: 'off', disabled: model !== null, spellcheck: 'false' });
  name.addEventListener('input', () => {
    draft.name = name.value;
    if (!draft.slugTouched) {
      draft.slug = slugify(name.value);
      slug.value = draft.slug;
    }
  });
  slug.addEventListener('input', () => {
    draft.slug = slug.value;
    draft.slugTouched = true;
  });
  const description = h('textarea', { name: 'description', rows: 2, value: draft.description });
  description.addEventListener('input', () => {
    draft.description = description.value;
  });
  return { name, slug, description };
}

/**
 * Saving a model without a field it had deletes that field's values from every record (a renamed key too): when the
 * model has records, the user confirms first. True when there is nothing to confirm or it was confirmed.
 */
async function confirmRemovedFields(model: ModelDefinition, draft: Draft): Promise<boolean> {
  const removed = removedFields(model, draft);
  if (!mustConfirmRemoval(model, removed)) return true;
  const records = model.recordCount === 1 ? '1 record' : `${model.recordCount.toLocaleString()} records`;
  const what = removed.length === 1 ? 'field' : `${removed.length} fields`;
  return confirmDialog({
    title: `Remove ${what} from ${model.name}?`,
    message: [
      h(
        'p',
        null,
        `${model.name} has ${records}. Saving deletes the values of ${removed.length === 1 ? 'this field' : 'these fields'} from every one of them. This cannot be undone.`,
      ),
      h(
        'ul',
        { class: 'dialog-list' },
        removed.map((field) => h('li', null, `${field.label} (${field.key})`)),
      ),
    ],
    confirmLabel: `Save and delete the values`,
    danger: true,
  });
}
