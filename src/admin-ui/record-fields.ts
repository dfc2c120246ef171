// Form inputs generated from field types. Each widget reads back a JSON value (numbers as JSON numbers,
// translatable values as locale → text objects, relations as record ids) or a problem to show next to it.
import { h, uid } from './dom.js';
import { mediaWidget } from './media-picker.js';
import { readNumberInput } from './number-input.js';
import { relationWidget } from './record-field-relation.js';
import { LOCALE_PATTERN } from '../shared/field-types.js';
import { isPlainObject } from '../shared/json.js';
import type { FieldDefinition, JsonObject, JsonValue, ModelDefinition } from './types.js';
import { button, group, input, labelled, select, type FieldRow } from './ui.js';

export interface ReadResult {
  /** `undefined`: no value (left out of a new record, removed from an existing one). */
  value: JsonValue | undefined;
  /** A problem found before sending, such as text in a number field. */
  problem?: string;
  /** The problem is already shown at the sub-fields it is about (an object's), not to be shown again at the field. */
  shown?: boolean;
}

export interface Widget {
  row: FieldRow;
  read(): ReadResult;
}

/** What a widget is built from: the field, its value so far, its path in the record data, and the form's context. */
export interface WidgetArgs {
  field: FieldDefinition;
  initial: JsonValue | undefined;
  path: string;
  ctx: WidgetContext;
  /** The row's options: required, and the hint for the field's type. */
  options: { required: boolean; hint?: string };
}

export interface WidgetContext {
  models: readonly ModelDefinition[];
  /** Error slots by path (`price`, `dims.width`), for the messages of the server. */
  register(path: string, row: FieldRow): void;
  disabled: boolean;
  /** The workspace's default locale: a new translatable value starts with it. */
  defaultLocale: string;
}

function hintOf(field: FieldDefinition): string | undefined {
  switch (field.type) {
    case 'number':
      return 'A number, such as 149.99 or 149,99. Thousands, if grouped: 1 234,5 or 1,234.5.';
    case 'date':
      return 'A date; the time is optional (UTC).';
    case 'translatable':
      return 'One text per locale (en, pl, pt-BR).';
    case 'object':
      return field.fields && field.fields.length > 0 ? undefined : 'A JSON object, such as {"width": 20}.';
    default:
      return undefined;
  }
}

export function widgetFor(field: FieldDefinition, initial: JsonValue | undefined, path: string, ctx: WidgetContext): Widget {
  const widget = buildWidget(field, initial, path, ctx);
  ctx.register(path, widget.row);
  widget.row.element.setAttribute('data-field', path);
  return widget;
}

function buildWidget(field: FieldDefinition, initial: JsonValue | undefined, path: string, ctx: WidgetContext): Widget {
  const options = { required: field.required, ...(hintOf(field) ? { hint: hintOf(field)! } : {}) };
  const disabled = ctx.disabled;
  const args: WidgetArgs = { field, initial, path, ctx, options };
  switch (field.type) {
    case 'number': {
      // A text input read by readNumberInput: <input type=number> reads 9,99 as 999 in an English browser.
      const shown = typeof initial === 'number' ? String(initial) : '';
      const control = input({
        type: 'text',
        inputmode: 'decimal',
        autocomplete: 'off',
        spellcheck: 'false',
        name: path,
        value: shown,
        disabled,
      });
      return {
        row: labelled(field.label, control, options),
        // A stored value left as shown is kept as it is, even when its text alone would be ambiguous (1.234).
        read: () =>
          typeof initial === 'number' && control.value === shown ? { value: initial } : readNumberInput(control.value),
      };
    }
    case 'boolean': {
      const control = select(
        [
          { value: '', label: '(not set)' },
          { value: 'true', label: 'Yes' },
          { value: 'false', label: 'No' },
        ],
        initial === true ? 'true' : initial === false ? 'false' : '',
        { name: path, disabled },
      );
      return {
        row: labelled(field.label, control, options),
        read: () => ({ value: control.value === '' ? undefined : control.value === 'true' }),
      };
    }
    case 'date':
      return dateWidget(args);
    case 'relation':
      return relationWidget(args);
    case 'media':
      return mediaWidget(args);
    case 'translatable':
      return translatableWidget(args);
    case 'object':
      if (field.fields && field.fields.length > 0) return objectWidget(args);
      return jsonWidget(args);
    case 'text':
    default: {
      const text =
        typeof initial === 'string' ? initial : initial === undefined || initial === null ? '' : JSON.stringify(initial);
      const long = text.length > 80 || text.includes('\n');
      const control = long
        ? h('textarea', { name: path, rows: 4, value: text, disabled })
        : input({ name: path, value: text, disabled });
      return {
        row: labelled(field.label, control, options),
        read: () => ({ value: control.value === '' ? undefined : control.value }),
      };
    }
  }
}

function dateWidget({ field, initial, path, ctx, options }: WidgetArgs): Widget {
  const { disabled } = ctx;
  const original = typeof initial === 'string' ? initial : undefined;
  let datePart = '';
  let timePart = '';
  if (original && /^\d{4}-\d{2}-\d{2}$/.test(original)) {
    datePart = original;
  } else if (original && !Number.isNaN(Date.parse(original))) {
    const iso = new Date(original).toISOString();
    datePart = iso.slice(0, 10);
    timePart = iso.slice(11, 19);
  }
  let touched = false;
  const date = input({ type: 'date', name: path, value: datePart, disabled, 'aria-label': `${field.label}: date` });
  const time = input({
    type: 'time',
    step: '1',
    name: `${path}.time`,
    value: timePart,
    disabled,
    'aria-label': `${field.label}: time (UTC, optional)`,
  });
  const touch = () => {
    touched = true;
  };
  date.addEventListener('input', touch);
  time.addEventListener('input', touch);
  const row = group(
    field.label,
    [h('div', { class: 'inline-inputs' }, date, h('span', { class: 'muted' }, 'time (UTC)'), time)],
    options,
  );
  return {
    row,
    read: () => {
      if (!touched) return { value: original };
      if (date.validity.badInput) return { value: undefined, problem: 'is not a complete date' };
      if (date.value === '') return time.value ? { value: undefined, problem: 'a time needs a date' } : { value: undefined };
      if (!time.value) return { value: date.value };
      const seconds = time.value.length === 5 ? `${time.value}:00` : time.value;
      return { value: `${date.value}T${seconds}Z` };
    },
  };
}

function jsonWidget({ field, initial, path, ctx, options }: WidgetArgs): Widget {
  const control = h('textarea', {
    name: path,
    rows: 4,
    class: 'code',
    spellcheck: 'false',
    value: initial === undefined || initial === null ? '' : JSON.stringify(initial, null, 2),
    disabled: ctx.disabled,
  });
  return {
    row: labelled(field.label, control, options),
    read: () => {
      if (control.value.trim() === '') return { value: undefined };
      try {
        const value = JSON.parse(control.value) as JsonValue;
        return isPlainObject(value) ? { value } : { value: undefined, problem: 'must be a JSON object, such as {"width": 20}' };
      } catch {
        return { value: undefined, problem: 'is not valid JSON' };
      }
    },
  };
}

function objectWidget({ field, initial, path, ctx, options }: WidgetArgs): Widget {
  const values = isPlainObject(initial) ? initial : {};
  const subs = (field.fields ?? []).map((sub) => ({
    key: sub.key,
    widget: widgetFor(sub, values[sub.key], `${path}.${sub.key}`, ctx),
  }));
  const row = group(
    field.label,
    subs.map((sub) => sub.widget.row.element),
    { ...options, className: 'nested' },
  );
  return {
    row,
    read: () => {
      const value: JsonObject = {};
      const problems: string[] = [];
      for (const sub of subs) {
        const result = sub.widget.read();
        if (result.problem) {
          if (!result.shown) sub.widget.row.setError(result.problem);
          problems.push(`${sub.key}: ${result.problem}`);
        }
        if (result.value !== undefined) value[sub.key] = result.value;
      }
      if (problems.length > 0) return { value: undefined, problem: problems.join('; '), shown: true };
      return { value: Object.keys(value).length > 0 ? value : undefined };
    },
  };
}

function translatableWidget({ field, initial, ctx, options }: WidgetArgs): Widget {
  const { disabled, defaultLocale } = ctx;
  const list = h('div', { class: 'locale-list' });
  const entries: { locale: HTMLInputElement; text: HTMLInputElement; element: HTMLElement }[] = [];
  const addEntry = (locale: string, text: string, focus: boolean) => {
    const localeInput = input({
      value: locale,
      size: 6,
      class: 'locale-input',
      autocomplete: 'off',
      spellcheck: 'false',
      disabled,
    });
    const textInput = input({ value: text, disabled });
    const localeId = uid('locale');
    localeInput.id = localeId;
    const describeText = () => textInput.setAttribute('aria-label', `${field.label} (${localeInput.value || 'new locale'})`);
    describeText();
    localeInput.addEventListener('input', describeText);
    localeInput.setAttribute('aria-label', `${field.label}: locale code`);
    const entry = {
      locale: localeInput,
      text: textInput,
      element: h(
        'div',
        { class: 'locale-row' },
        localeInput,
        textInput,
        disabled
          ? null
          : button(
              'Remove',
              () => {
                entries.splice(entries.indexOf(entry), 1);
                entry.element.remove();
                addButton.focus();
              },
              { 'aria-label': `Remove locale ${localeInput.value || ''} of ${field.label}` },
            ),
      ),
    };
    entries.push(entry);
    list.append(entry.element);
    if (focus) localeInput.focus();
  };
  const addButton = button('Add locale', () => addEntry('', '', true), { disabled, class: 'button add-locale' });
  const existing = isPlainObject(initial) ? Object.entries(initial) : [];
  if (existing.length === 0) addEntry(defaultLocale, '', false);
  for (const [locale, text] of existing) addEntry(locale, typeof text === 'string' ? text : JSON.stringify(text), false);
  const row = group(field.label, [list, addButton], options);
  return {
    row,
    read: () => {
      const value: JsonObject = {};
      for (const entry of entries) {
        const locale = entry.locale.value.trim();
        const text = entry.text.value;
        if (locale === '' && text === '') continue;
        if (!LOCALE_PATTERN.test(locale))
          return { value: undefined, problem: `"${locale}" is not a locale code (such as en, pl or pt-BR)` };
        if (locale in value) return { value: undefined, problem: `locale ${locale} is given twice` };
        if (text !== '') value[locale] = text;
      }
      return { value: Object.keys(value).length > 0 ? value : undefined };
    },
  };
}
