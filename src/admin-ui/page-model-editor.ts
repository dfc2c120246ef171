// Create or edit a model: name, slug, description, delivery access, display field, product settings, and the
// field editor (every field type; relation target and kind; object sub-fields, nested).
import { ApiError, gql } from './api.js';
import { h, replaceChildren, uid } from './dom.js';
import { invalidateModels, listModels, MODEL_SELECTION } from './models-cache.js';
import type { PageContext } from './page.js';
import { FIELD_TYPES, hasUnreadLevels, mayChangeModels, type FieldDefinition, type FieldType, type ModelDefinition } from './types.js';
import { alertBox, announce, button, errorArea, errorSlot, group, input, labelled, linkButton, pageHeader, select, type FieldRow } from './ui.js';
import { keyify, pathPrefixes, slugify, splitFieldMessage } from './values.js';

interface DraftField {
  uid: string;
  key: string;
  label: string;
  type: FieldType;
  required: boolean;
  relationTo: string;
  relationType: 'hasOne' | 'hasMany';
  fields: DraftField[];
  /** Stops the key following the label once the key was typed (or for a field that exists). */
  keyTouched: boolean;
}

interface Draft {
  name: string;
  slug: string;
  slugTouched: boolean;
  description: string;
  displayField: string;
  deliveryAccess: 'public' | 'none';
  product: { enabled: boolean; skuField: string; priceField: string };
  fields: DraftField[];
}

const TYPE_LABELS: Record<FieldType, string> = {
  text: 'Text',
  number: 'Number',
  boolean: 'Boolean (yes / no)',
  date: 'Date',
  relation: 'Relation',
  translatable: 'Translatable text',
  object: 'Object',
};

const TYPE_HINTS: Record<FieldType, string> = {
  text: 'A string.',
  number: 'A JSON number, such as 149.99.',
  boolean: 'true or false.',
  date: 'An ISO 8601 date or date-time.',
  relation: 'Links to records of a model.',
  translatable: 'One text per locale (en, pl, pt-BR).',
  object: 'Sub-fields below, or any JSON object.',
};

function draftField(field?: FieldDefinition): DraftField {
  return {
    uid: uid('field'),
    key: field?.key ?? '',
    label: field?.label ?? '',
    type: field?.type ?? 'text',
    required: field?.required ?? false,
    relationTo: field?.relationTo ?? '',
    relationType: field?.relationType === 'hasMany' ? 'hasMany' : 'hasOne',
    fields: (field?.fields ?? []).map((sub) => draftField(sub)),
    keyTouched: field !== undefined,
  };
}

function draftOf(model: ModelDefinition | null): Draft {
  return {
    name: model?.name ?? '',
    slug: model?.slug ?? '',
    slugTouched: model !== null,
    description: model?.description ?? '',
    displayField: model?.displayField ?? '',
    deliveryAccess: model?.deliveryAccess ?? 'none',
    product: {
      enabled: model?.product?.enabled ?? false,
      skuField: model?.product?.skuField ?? '',
      priceField: model?.product?.priceField ?? '',
    },
    fields: model ? model.fields.map((field) => draftField(field)) : [draftField()],
  };
}

function fieldInput(field: DraftField): Record<string, unknown> {
  const out: Record<string, unknown> = { key: field.key.trim(), label: field.label.trim() || field.key.trim(), type: field.type, required: field.required };
  if (field.type === 'relation') {
    out.relationTo = field.relationTo;
    out.relationType = field.relationType;
  }
  if (field.type === 'object' && field.fields.length > 0) out.fields = field.fields.map(fieldInput);
  return out;
}

export async function renderModelEditor(ctx: PageContext): Promise<void> {
  const modelId = ctx.params.modelId;
  const [model, models] = await Promise.all([
    modelId
      ? gql<{ model: { get: ModelDefinition | null } }>(`query AdminModel($id: ID!) { model { get(id: $id) { ${MODEL_SELECTION} } } }`, { id: modelId }).then(
          (data) => data.model.get,
        )
      : Promise.resolve(null),
    listModels(),
  ]);
  if (!ctx.isCurrent()) return;
  if (modelId && !model) {
    replaceChildren(ctx.main, pageHeader('Model not found'), alertBox('This model does not exist in this workspace (any more).'), h('p', null, h('a', { href: '#/models' }, 'Back to the models')));
    return;
  }
  const title = model ? `Edit model ${model.name}` : 'New model';
  ctx.setTitle(title);
  if (model && hasUnreadLevels(model.fields)) {
    replaceChildren(ctx.main, pageHeader(title), alertBox('This model nests object fields deeper than the admin application reads; change it through the GraphQL API.'));
    return;
  }
  const draft = draftOf(model);
  const errors = errorArea();
  /** Error slots by the path the server names (`name`, `fields[1].key`, `product.skuField`). */
  const rows = new Map<string, FieldRow>();
  const register = (path: string, row: FieldRow) => {
    rows.set(path, row);
    return row;
  };

  // --- model-level controls ---
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

  const deliveryName = uid('delivery');
  const deliveryRadio = (value: 'public' | 'none', label: string, hint: string) => {
    const radio = input({ type: 'radio', name: deliveryName, value, checked: draft.deliveryAccess === value });
    radio.id = uid('radio');
    radio.addEventListener('change', () => {
      if (radio.checked) draft.deliveryAccess = value;
    });
    return h('div', { class: 'radio' }, radio, h('label', { for: radio.id }, label, h('span', { class: 'muted' }, ` — ${hint}`)));
  };
  const delivery = register(
    'deliveryAccess',
    group('Delivery access', [
      deliveryRadio('none', 'Not delivered', 'records are read only with a token or in this application'),
      deliveryRadio('public', 'Public', 'records are served read-only without a token on the delivery URL'),
    ]),
  );

  const displaySelect = h('select', { name: 'displayField' });
  const skuSelect = h('select', { name: 'skuField' });
  const priceSelect = h('select', { name: 'priceField' });
  const fillSelect = (target: HTMLSelectElement, options: { value: string; label: string }[], value: string) => {
    target.replaceChildren(...options.map((option) => h('option', { value: option.value }, option.label)));
    target.value = options.some((option) => option.value === value) ? value : (options[0]?.value ?? '');
  };
  const refreshDependent = () => {
    const keyed = draft.fields.filter((field) => field.key.trim() !== '');
    fillSelect(displaySelect, [{ value: '', label: '(the first field)' }, ...keyed.map((field) => ({ value: field.key, label: `${field.label || field.key} (${field.key})` }))], draft.displayField);
    fillSelect(skuSelect, [{ value: '', label: '(choose a text field)' }, ...keyed.filter((field) => field.type === 'text').map((field) => ({ value: field.key, label: `${field.label || field.key} (${field.key})` }))], draft.product.skuField);
    fillSelect(priceSelect, [{ value: '', label: '(no price field)' }, ...keyed.filter((field) => field.type === 'number').map((field) => ({ value: field.key, label: `${field.label || field.key} (${field.key})` }))], draft.product.priceField);
  };
  displaySelect.addEventListener('change', () => {
    draft.displayField = displaySelect.value;
  });
  skuSelect.addEventListener('change', () => {
    draft.product.skuField = skuSelect.value;
  });
  priceSelect.addEventListener('change', () => {
    draft.product.priceField = priceSelect.value;
  });

  const productEnabled = input({ type: 'checkbox', name: 'productEnabled', checked: draft.product.enabled });
  const productDetails = h(
    'div',
    { class: 'product-details', hidden: !draft.product.enabled },
    register('product.skuField', labelled('SKU field', skuSelect, { hint: 'A text field whose values must be unique among the records.' })).element,
    register('product.priceField', labelled('Price field', priceSelect, { hint: 'A number field; the price is in major units (149.99).' })).element,
  );
  productEnabled.addEventListener('change', () => {
    draft.product.enabled = productEnabled.checked;
    productDetails.hidden = !productEnabled.checked;
  });
  const product = register(
    'product',
    group('Product catalog', [labelled('This model is a product catalog', productEnabled).element, productDetails]),
  );
  register('product.enabled', product);

  // --- the field editor ---
  const relationTargets = () => {
    const slugs = models.map((candidate) => candidate.slug);
    if (!model && draft.slug && !slugs.includes(draft.slug)) slugs.push(draft.slug);
    return slugs.sort();
  };

  const fieldsRoot = h('div', { class: 'field-list-root' });

  const renderList = (list: DraftField[], prefix: string, depth: number, container: HTMLElement, focusUid?: string, focusWhat = 'label'): void => {
    const listElement = h('ol', { class: 'field-list' });
    const rerender = (nextFocus?: string, what?: string) => {
      renderList(list, prefix, depth, container, nextFocus, what);
      refreshDependent();
    };
    list.forEach((field, index) => {
      const path = `${prefix}[${index}]`;
      const label = input({ value: field.label, autocomplete: 'off', 'data-part': 'label' });
      const key = input({ value: field.key, autocomplete: 'off', spellcheck: 'false', 'data-part': 'key' });
      label.addEventListener('input', () => {
        field.label = label.value;
        if (!field.keyTouched) {
          field.key = keyify(label.value);
          key.value = field.key;
        }
        legendText.textContent = fieldTitle(index, field);
        refreshDependent();
      });
      key.addEventListener('input', () => {
        field.key = key.value;
        field.keyTouched = true;
        legendText.textContent = fieldTitle(index, field);
        refreshDependent();
      });
      const type = select(FIELD_TYPES.map((value) => ({ value, label: TYPE_LABELS[value] })), field.type, { 'data-part': 'type' });
      type.addEventListener('change', () => {
        field.type = type.value as FieldType;
        rerender(field.uid, 'type');
      });
      const required = input({ type: 'checkbox', checked: field.required, 'data-part': 'required' });
      required.addEventListener('change', () => {
        field.required = required.checked;
      });

      const extra: HTMLElement[] = [];
      if (field.type === 'relation') {
        const targets = relationTargets();
        if (!field.relationTo && targets[0]) field.relationTo = `model:${targets[0]}`;
        const target = select(
          [...targets.map((slugValue) => ({ value: `model:${slugValue}`, label: slugValue })), ...(field.relationTo && !targets.includes(field.relationTo.replace(/^model:/, '')) ? [{ value: field.relationTo, label: field.relationTo }] : [])],
          field.relationTo,
          { 'data-part': 'relationTo' },
        );
        target.addEventListener('change', () => {
          field.relationTo = target.value;
        });
        const kind = select(
          [
            { value: 'hasOne', label: 'One record (hasOne)' },
            { value: 'hasMany', label: 'Several records (hasMany)' },
          ],
          field.relationType,
          { 'data-part': 'relationType' },
        );
        kind.addEventListener('change', () => {
          field.relationType = kind.value === 'hasMany' ? 'hasMany' : 'hasOne';
        });
        extra.push(
          h(
            'div',
            { class: 'field-extra' },
            register(`${path}.relationTo`, labelled('Target model', target, targets.length === 0 ? { hint: 'Create the target model first.' } : {})).element,
            register(`${path}.relationType`, labelled('Links', kind)).element,
          ),
        );
      }
      if (field.type === 'object') {
        const subContainer = h('div', { class: 'sub-fields' });
        renderList(field.fields, `${path}.fields`, depth + 1, subContainer);
        extra.push(
          register(
            `${path}.fields`,
            group('Sub-fields', subContainer, { hint: 'Without sub-fields the object holds any JSON object.', className: 'nested' }),
          ).element,
        );
      }

      const move = (delta: number) => {
        const target = index + delta;
        if (target < 0 || target >= list.length) return;
        [list[index], list[target]] = [list[target]!, list[index]!];
        rerender(field.uid, delta < 0 ? 'up' : 'down');
        announce(`Field ${field.key || index + 1} moved to position ${target + 1}.`);
      };
      const legendText = h('span', null, fieldTitle(index, field));
      const fieldset = h(
        'fieldset',
        { class: `field-editor depth-${depth}`, 'data-field-uid': field.uid },
        h('legend', null, legendText),
        h(
          'div',
          { class: 'field-grid' },
          register(`${path}.label`, labelled('Label', label)).element,
          register(`${path}.key`, labelled('Key', key)).element,
          register(`${path}.type`, labelled('Type', type, { hint: TYPE_HINTS[field.type] })).element,
          register(`${path}.required`, labelled('Required', required)).element,
          h(
            'div',
            { class: 'field-tools' },
            button('↑', () => move(-1), { disabled: index === 0, 'data-part': 'up', 'aria-label': `Move field ${index + 1} up`, title: 'Move up' }),
            button('↓', () => move(1), { disabled: index === list.length - 1, 'data-part': 'down', 'aria-label': `Move field ${index + 1} down`, title: 'Move down' }),
            button(
              'Remove',
              () => {
                list.splice(index, 1);
                rerender();
                announce(`Field ${field.key || index + 1} removed.`);
                container.querySelector<HTMLElement>(':scope > .add-field')?.focus();
              },
              { class: 'button button-danger', 'aria-label': `Remove field ${index + 1}` },
            ),
          ),
        ),
        extra,
      );
      const { slot, setError } = errorSlot(fieldset, '');
      fieldset.append(slot);
      register(path, { element: fieldset, focusTarget: label, setError });
      listElement.append(h('li', null, fieldset));
    });
    const addButton = button(
      depth === 0 ? 'Add field' : 'Add sub-field',
      () => {
        const added = draftField();
        list.push(added);
        rerender(added.uid, 'label');
      },
      { class: 'button add-field' },
    );
    replaceChildren(container, listElement, addButton);
    if (focusUid) {
      const fieldset = container.querySelector<HTMLElement>(`[data-field-uid="${focusUid}"]`);
      const target = fieldset?.querySelector<HTMLElement>(`[data-part="${focusWhat}"]:not([disabled])`) ?? fieldset?.querySelector<HTMLElement>('[data-part="label"]');
      target?.focus();
    }
  };

  renderList(draft.fields, 'fields', 0, fieldsRoot);
  refreshDependent();
  const fieldsGroup = register(
    'fields',
    group('Fields', fieldsRoot, {
      hint: model
        ? 'A key is the name of the value in the API: letters, digits and _. Renaming or removing a field removes the values stored under its key.'
        : 'A key is the name of the value in the API: letters, digits and _ (it follows the label until you change it).',
    }),
  );

  const submit = h('button', { type: 'submit', class: 'button button-primary' }, model ? 'Save model' : 'Create model');
  const clearErrors = () => {
    errors.clear();
    for (const row of rows.values()) row.setError(null);
  };
  const showError = (error: unknown) => {
    errors.show(error, model ? 'The model was not saved.' : 'The model was not created.');
    if (!(error instanceof ApiError)) return;
    const named = splitFieldMessage(error.message);
    if (!named) return;
    let row: FieldRow | undefined;
    for (const path of pathPrefixes(named.path)) {
      const found = rows.get(path);
      if (found && found.element.isConnected) {
        row = found;
        break;
      }
    }
    // A CONFLICT on a change names the field by its key (`price: ...`).
    if (!row) {
      const index = draft.fields.findIndex((field) => field.key === named.path);
      if (index >= 0) row = rows.get(`fields[${index}]`);
    }
    if (row) {
      row.setError(named.reason);
      row.focusTarget.focus();
    }
  };

  const form = h(
    'form',
    {
      class: 'model-form',
      novalidate: true,
      onsubmit: async (event: Event) => {
        event.preventDefault();
        clearErrors();
        const fields = draft.fields.map(fieldInput);
        const productInput = draft.product.enabled
          ? { enabled: true, skuField: draft.product.skuField || null, priceField: draft.product.priceField || null }
          : null;
        const common: Record<string, unknown> = {
          name: draft.name.trim(),
          description: draft.description.trim() === '' ? null : draft.description,
          displayField: draft.displayField || null,
          deliveryAccess: draft.deliveryAccess,
          fields,
        };
        submit.disabled = true;
        try {
          let saved: { id: string; name: string };
          if (model) {
            const data = await gql<{ model: { update: { id: string; name: string } } }>(
              'mutation UpdateModel($input: UpdateModelDefinitionInput!) { model { update(input: $input) { id name } } }',
              { input: { id: model.id, ...common, product: productInput } },
            );
            saved = data.model.update;
          } else {
            const data = await gql<{ model: { create: { id: string; name: string } } }>(
              'mutation CreateModel($input: CreateModelDefinitionInput!) { model { create(input: $input) { id name } } }',
              { input: { slug: draft.slug.trim(), ...common, ...(productInput ? { product: productInput } : {}) } },
            );
            saved = data.model.create;
          }
          invalidateModels();
          ctx.flash(model ? `Model ${saved.name} saved.` : `Model ${saved.name} created. Add its first record, or import a CSV.`);
          ctx.navigate(`#/models/${saved.id}/records`);
        } catch (error) {
          showError(error);
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
      register('slug', labelled('Slug', slug, { required: true, hint: model ? 'The slug cannot be changed.' : 'Used in the delivery API: a-z, 0-9, "-" and "_".' })).element,
    ),
    register('description', labelled('Description', description)).element,
    fieldsGroup.element,
    register('displayField', labelled('Display field', displaySelect, { hint: 'The field that names a record in tables and relation pickers.' })).element,
    product.element,
    delivery.element,
    h('div', { class: 'form-actions' }, submit, linkButton('Cancel', model ? `#/models/${model.id}/records` : '#/models')),
  );

  replaceChildren(
    ctx.main,
    pageHeader(title),
    mayChangeModels(ctx.workspace.role) ? null : alertBox(`Your role (${ctx.workspace.role}) may not change models; the server will refuse.`),
    form,
  );
}

function fieldTitle(index: number, field: DraftField): string {
  return `Field ${index + 1}${field.key ? `: ${field.key}` : ''}`;
}
