// The model editor's field list: a row for each field (label, key, type, required; relation target and kind;
// object sub-fields, nested), moved, removed and added in place.
import { FIELD_TYPES, type FieldType } from '../shared/field-types.js';
import { ACCEPTED_ASSET_TYPES } from '../shared/media.js';
import { h, replaceChildren } from './dom.js';
import { draftField, type DraftField } from './model-draft.js';
import type { RegisterRow } from './model-form-errors.js';
import { announce, button, errorSlot, group, input, labelled, select } from './ui.js';
import { keyify } from './values.js';

const TYPE_LABELS: Record<FieldType, string> = {
  text: 'Text',
  number: 'Number',
  boolean: 'Boolean (yes / no)',
  date: 'Date',
  relation: 'Relation',
  translatable: 'Translatable text',
  object: 'Object',
  media: 'Media (images, files)',
};

const TYPE_HINTS: Record<FieldType, string> = {
  text: 'A string.',
  number: 'A JSON number, such as 149.99.',
  boolean: 'true or false.',
  date: 'An ISO 8601 date or date-time.',
  relation: 'Links to records of a model.',
  translatable: 'One text per locale (en, pl, pt-BR).',
  object: 'Sub-fields below, or any JSON object.',
  media: 'Assets of the Media library: one, or several.',
};

export interface FieldListContext {
  register: RegisterRow;
  /** After a change of the fields' keys, labels, types or order (the selects that offer fields follow). */
  onFieldsChanged(): void;
  /** The slugs a relation may point at. */
  relationTargets(): string[];
}

/** One level of fields (`prefix` is its path, such as `fields` or `fields[2].fields`), drawn into `container`. */
export function renderFieldList(
  context: FieldListContext,
  list: DraftField[],
  prefix: string,
  depth: number,
  container: HTMLElement,
  focusUid?: string,
  focusWhat = 'label',
): void {
  const listElement = h('ol', { class: 'field-list' });
  const rerender = (nextFocus?: string, what?: string) => {
    renderFieldList(context, list, prefix, depth, container, nextFocus, what);
    context.onFieldsChanged();
  };
  list.forEach((field, index) => {
    listElement.append(h('li', null, fieldEditor(context, { list, index, prefix, depth, container, rerender })));
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
    const target =
      fieldset?.querySelector<HTMLElement>(`[data-part="${focusWhat}"]:not([disabled])`) ??
      fieldset?.querySelector<HTMLElement>('[data-part="label"]');
    target?.focus();
  }
}

interface FieldPlace {
  list: DraftField[];
  index: number;
  prefix: string;
  depth: number;
  container: HTMLElement;
  /** Draws the list again, focusing a part of a field. */
  rerender: (focusUid?: string, what?: string) => void;
}

function fieldEditor(context: FieldListContext, place: FieldPlace): HTMLFieldSetElement {
  const { list, index, depth, container, rerender } = place;
  const field = list[index]!;
  const path = `${place.prefix}[${index}]`;
  const { register } = context;
  const label = input({ value: field.label, autocomplete: 'off', 'data-part': 'label' });
  const key = input({ value: field.key, autocomplete: 'off', spellcheck: 'false', 'data-part': 'key' });
  label.addEventListener('input', () => {
    field.label = label.value;
    if (!field.keyTouched) {
      field.key = keyify(label.value);
      key.value = field.key;
    }
    legendText.textContent = fieldTitle(index, field);
    context.onFieldsChanged();
  });
  key.addEventListener('input', () => {
    field.key = key.value;
    field.keyTouched = true;
    legendText.textContent = fieldTitle(index, field);
    context.onFieldsChanged();
  });
  const type = select(
    FIELD_TYPES.map((value) => ({ value, label: TYPE_LABELS[value] })),
    field.type,
    { 'data-part': 'type' },
  );
  type.addEventListener('change', () => {
    field.type = type.value as FieldType;
    rerender(field.uid, 'type');
  });
  const required = input({ type: 'checkbox', checked: field.required, 'data-part': 'required' });
  required.addEventListener('change', () => {
    field.required = required.checked;
  });

  const extra: HTMLElement[] = [];
  if (field.type === 'relation') extra.push(relationControls(context, field, path));
  if (field.type === 'media') extra.push(mediaControls(context, field, path));
  if (field.type === 'object') {
    const subContainer = h('div', { class: 'sub-fields' });
    renderFieldList(context, field.fields, `${path}.fields`, depth + 1, subContainer);
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
        button('↑', () => move(-1), {
          disabled: index === 0,
          'data-part': 'up',
          'aria-label': `Move field ${index + 1} up`,
          title: 'Move up',
        }),
        button('↓', () => move(1), {
          disabled: index === list.length - 1,
          'data-part': 'down',
          'aria-label': `Move field ${index + 1} down`,
          title: 'Move down',
        }),
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
  const { slot, setError, error } = errorSlot(fieldset, '');
  fieldset.append(slot);
  register(path, { element: fieldset, focusTarget: label, setError, error });
  return fieldset;
}

/** A relation's target model and kind (one record or several). */
function relationControls(context: FieldListContext, field: DraftField, path: string): HTMLElement {
  const targets = context.relationTargets();
  if (!field.relationTo && targets[0]) field.relationTo = `model:${targets[0]}`;
  const target = select(
    [
      ...targets.map((slugValue) => ({ value: `model:${slugValue}`, label: slugValue })),
      ...(field.relationTo && !targets.includes(field.relationTo.replace(/^model:/, ''))
        ? [{ value: field.relationTo, label: field.relationTo }]
        : []),
    ],
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
  return h(
    'div',
    { class: 'field-extra' },
    context.register(
      `${path}.relationTo`,
      labelled('Target model', target, targets.length === 0 ? { hint: 'Create the target model first.' } : {}),
    ).element,
    context.register(`${path}.relationType`, labelled('Links', kind)).element,
  );
}

const KIND_LABELS: Record<(typeof ACCEPTED_ASSET_TYPES)[number], string> = {
  image: 'Images',
  video: 'Videos',
  audio: 'Audio',
  document: 'Documents',
};

/** A media field's settings: one asset or several, and the kinds it takes (none checked: all). */
function mediaControls(context: FieldListContext, field: DraftField, path: string): HTMLElement {
  const multiple = input({ type: 'checkbox', checked: field.multiple, 'data-part': 'multiple' });
  multiple.addEventListener('change', () => {
    field.multiple = multiple.checked;
  });
  const kinds = ACCEPTED_ASSET_TYPES.map((kind) => {
    const box = input({
      type: 'checkbox',
      checked: field.acceptedTypes.includes(kind),
      value: kind,
      'data-part': `accepts-${kind}`,
    });
    box.addEventListener('change', () => {
      // Kept in the order of ACCEPTED_ASSET_TYPES, whatever the order of the clicks.
      const chosen = new Set(field.acceptedTypes.filter((value) => value !== kind));
      if (box.checked) chosen.add(kind);
      field.acceptedTypes = ACCEPTED_ASSET_TYPES.filter((value) => chosen.has(value));
    });
    return labelled(KIND_LABELS[kind], box).element;
  });
  return h(
    'div',
    { class: 'field-extra' },
    context.register(
      `${path}.multiple`,
      labelled('Several assets', multiple, { hint: 'The value is a list of asset ids, in order.' }),
    ).element,
    context.register(
      `${path}.acceptedTypes`,
      group('Accepted types', h('div', { class: 'inline-inputs' }, kinds), { hint: 'None checked: any kind of file.' }),
    ).element,
  );
}

function fieldTitle(index: number, field: DraftField): string {
  return `Field ${index + 1}${field.key ? `: ${field.key}` : ''}`;
}
