// The filter bar above the records table: conditions (field, operator, value) combined with AND, edited as a
// draft and applied on Enter or "Apply filter", each removable, all clearable. The page keeps the applied filter in
// its URL; the server's refusal of it (`filter.price.$gte: expected a number`) is shown under the bar as it is, and
// the condition it names is marked. A condition on a relation field picks its records by name
// (filter-relation-value.ts).
import { h, uid } from './dom.js';
import { relationValue } from './filter-relation-value.js';
import { focusKey, returnFocusTo } from './focus-return.js';
import {
  filterOfDrafts,
  focusAfterRemove,
  namedPath,
  newDraft,
  pathOf,
  reoperate,
  retarget,
  type Draft,
} from './filter-draft.js';
import {
  conditionsOf,
  filterPaths,
  listItems,
  operatorLabel,
  operatorsFor,
  resolvePath,
  takesList,
  takesNoValue,
  type FilterPath,
  type Operator,
} from './record-filter.js';
import type { JsonObject, ModelDefinition } from './types.js';
import { button, input, select } from './ui.js';

export interface FilterBarOptions {
  model: ModelDefinition;
  /** The applied filter (from the URL). */
  filter: JsonObject | undefined;
  /** Shows the records for a filter (undefined: all records). */
  apply(filter: JsonObject | undefined): void;
  /** Why the applied filter shows nothing: the server's refusal, or a URL that could not be read. */
  problem?: string;
  /** A locale for a new condition on a translatable field. */
  defaultLocale: string;
  /** The workspace's models: the targets of relation fields, searched by their display field. */
  models: readonly ModelDefinition[];
}

/** `2026-05-01T10:00:00.000Z` → `2026-05-01T10:00:00` in the reader's time zone, for <input type=datetime-local>. */
function localDateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

function isoOfLocal(local: string): string {
  const date = new Date(local);
  return local === '' || Number.isNaN(date.getTime()) ? '' : date.toISOString();
}

/** The value control of a condition, typed by its path; writes what is typed into the draft. */
function valueControl(draft: Draft, label: string): HTMLInputElement | HTMLSelectElement {
  const { kind } = draft.target;
  const list = takesList(draft.operator);
  const update = (value: string) => {
    draft.value = value;
  };
  if (kind === 'boolean' && !list) {
    if (draft.value !== 'true' && draft.value !== 'false') draft.value = 'true';
    const control = select(
      [
        { value: 'true', label: 'Yes' },
        { value: 'false', label: 'No' },
      ],
      draft.value,
      { 'aria-label': label },
    );
    control.addEventListener('change', () => update(control.value));
    return control;
  }
  if (kind === 'timestamp' && !list) {
    const control = input({ type: 'datetime-local', step: '1', value: localDateTime(draft.value), 'aria-label': label });
    control.addEventListener('input', () => update(isoOfLocal(control.value)));
    return control;
  }
  if (kind === 'date' && !list && (draft.value === '' || /^\d{4}-\d{2}-\d{2}$/.test(draft.value))) {
    const control = input({ type: 'date', value: draft.value, 'aria-label': label });
    control.addEventListener('input', () => update(control.value));
    return control;
  }
  const placeholder = list
    ? kind === 'number'
      ? '1, 2, 3'
      : 'comma-separated'
    : kind === 'id'
      ? 'record id'
      : kind === 'number'
        ? '149.99'
        : '';
  const control = input({
    value: draft.value,
    'aria-label': label,
    autocomplete: 'off',
    spellcheck: 'false',
    inputmode: kind === 'number' && !list ? 'decimal' : null,
    placeholder: placeholder || null,
  });
  control.addEventListener('input', () => update(control.value));
  return control;
}

/**
 * The records picker of a condition on a relation field; null for other paths, and for a target model that is not
 * in the workspace or has no text display field to search by (the record id is typed then).
 */
function relationControl(draft: Draft, label: string, models: readonly ModelDefinition[]): HTMLElement | null {
  const slug = draft.target.relationTo;
  const target = slug === undefined ? undefined : models.find((model) => model.slug === slug);
  if (!target) return null;
  return relationValue({
    target,
    several: takesList(draft.operator),
    ids: listItems(draft.value),
    label,
    change: (ids) => {
      draft.value = ids.join(', ');
    },
  });
}

/** What a condition's row works on: the bar's options, its paths and drafts, and a redraw with a focus. */
interface BarState {
  options: FilterBarOptions;
  paths: readonly FilterPath[];
  drafts: Draft[];
  redraw(focus?: string): void;
}

/** One condition: its field, locale (translatable fields), operator and value, and a remove button. */
function conditionRow(bar: BarState, draft: Draft, index: number): HTMLLIElement {
  const { options, paths, drafts } = bar;
  const n = index + 1;
  const row = h('li', { class: 'filter-condition', 'data-path': pathOf(draft) });
  const fieldSelect = select(
    [
      ...paths.map((target) => ({ value: target.path, label: target.label })),
      ...(draft.target.unknown ? [{ value: draft.target.path, label: `${draft.target.path} (not a field)` }] : []),
    ],
    draft.target.path,
    { 'aria-label': `Condition ${n}: field`, class: 'filter-field' },
  );
  focusKey(fieldSelect, `filter-field-${n}`);
  fieldSelect.addEventListener('change', () => {
    const target = paths.find((candidate) => candidate.path === fieldSelect.value) ?? draft.target;
    drafts[index] = retarget(draft, target, options.defaultLocale);
    bar.redraw(`filter-field-${n}`);
  });
  const operatorSelect = select(
    operatorsFor(draft.target).map((operator) => ({ value: operator, label: operatorLabel(operator, draft.target) })),
    draft.operator,
    { 'aria-label': `Condition ${n}: operator`, class: 'filter-operator' },
  );
  focusKey(operatorSelect, `filter-operator-${n}`);
  operatorSelect.addEventListener('change', () => {
    drafts[index] = reoperate(draft, operatorSelect.value as Operator);
    bar.redraw(`filter-operator-${n}`);
  });
  const localeInput = draft.target.localized
    ? input({
        value: draft.locale,
        size: 6,
        class: 'locale-input',
        autocomplete: 'off',
        spellcheck: 'false',
        'aria-label': `Condition ${n}: locale`,
        title: 'A locale such as en, or empty for any translation',
        placeholder: 'any',
      })
    : null;
  localeInput?.addEventListener('input', () => {
    draft.locale = localeInput.value;
    row.dataset.path = pathOf(draft);
  });
  const valueLabel = `Condition ${n}: value`;
  const value = takesNoValue(draft.operator)
    ? null
    : (relationControl(draft, valueLabel, options.models) ?? valueControl(draft, valueLabel));
  // What a refusal marks invalid: the input itself, or a relation picker's search box.
  (value?.querySelector('input') ?? value)?.setAttribute('data-role', 'value');
  const remove = button(
    'Remove',
    () => {
      drafts.splice(index, 1);
      const complete = filterOfDrafts(drafts, paths);
      // Removing a condition of the applied filter shows its records at once, unless another is half typed.
      if (complete.problems.length === 0) {
        returnFocusTo(focusAfterRemove(n, drafts.length));
        options.apply(complete.filter);
      } else {
        bar.redraw(focusAfterRemove(n, drafts.length));
      }
    },
    { 'aria-label': `Remove condition ${n}`, class: 'button small' },
  );
  focusKey(remove, `filter-remove-${n}`);
  row.append(fieldSelect, localeInput ?? '', operatorSelect, value ?? '', remove);
  return row;
}

/** Marks the value of the condition at `rowPath` invalid, described by the message; clears the others. */
function markRows(list: HTMLElement, messageId: string, text: string | undefined, rowPath?: string): void {
  for (const row of list.querySelectorAll<HTMLElement>('li')) {
    const invalid = text !== undefined && rowPath !== undefined && row.dataset.path === rowPath;
    const value = row.querySelector<HTMLElement>('[data-role="value"]') ?? row.querySelector<HTMLElement>('select');
    if (!value) continue;
    if (invalid) {
      value.setAttribute('aria-invalid', 'true');
      value.setAttribute('aria-describedby', messageId);
    } else {
      value.removeAttribute('aria-invalid');
      value.removeAttribute('aria-describedby');
    }
  }
}

export function filterBar(options: FilterBarOptions): HTMLElement {
  const paths = filterPaths(options.model);
  const applied = options.filter ? conditionsOf(options.filter) : [];
  const drafts: Draft[] = (applied ?? []).map((condition) => {
    const { target, locale } = resolvePath(paths, condition.path);
    return { target, locale: locale ?? '', operator: condition.operator, value: condition.value };
  });
  const messageId = uid('filter-message');
  const message = h('div', { class: 'filter-message', id: messageId });
  const list = h('ol', { class: 'filter-conditions' });
  const title = h('h2', { class: 'filter-title', id: uid('filter-title') }, 'Filter');
  const form = h('form', { class: 'filter-bar', role: 'search', 'aria-labelledby': title.id, novalidate: true });

  const showMessage = (text: string | undefined, rowPath?: string) => {
    message.replaceChildren(text ? h('p', { class: 'field-error', role: 'alert' }, text) : '');
    markRows(list, messageId, text, rowPath);
  };

  const submit = () => {
    const built = filterOfDrafts(drafts, paths);
    if (built.problems.length > 0) {
      showMessage(built.problems.join('. '));
      return;
    }
    returnFocusTo('filter-apply');
    options.apply(built.filter);
  };

  const addButton = button(
    'Add condition',
    () => {
      drafts.push(newDraft(paths, options.defaultLocale));
      redraw(`filter-field-${drafts.length}`);
    },
    { class: 'button' },
  );
  focusKey(addButton, 'filter-add');
  const applyButton = focusKey(h('button', { type: 'submit', class: 'button button-primary' }, 'Apply filter'), 'filter-apply');
  const clearButton = button(
    'Clear all',
    () => {
      drafts.splice(0);
      returnFocusTo('filter-add');
      options.apply(undefined);
    },
    { class: 'button' },
  );
  focusKey(clearButton, 'filter-clear');
  const actions = h('div', { class: 'filter-actions' });
  const bar: BarState = { options, paths, drafts, redraw };

  function redraw(focus?: string): void {
    list.replaceChildren(...drafts.map((draft, index) => conditionRow(bar, draft, index)));
    const active = drafts.length > 0 || options.filter !== undefined;
    actions.replaceChildren(addButton, drafts.length > 0 ? applyButton : '', active ? clearButton : '');
    list.hidden = drafts.length === 0;
    if (focus) form.querySelector<HTMLElement>(`[data-focus-key="${focus}"]`)?.focus();
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit();
  });

  if (options.filter && !applied) {
    // A filter from a shared URL with `$or` or `$not`: applied as it is; the bar offers only to clear it.
    form.append(
      title,
      h('p', null, 'Records matching ', h('code', null, JSON.stringify(options.filter)), ' (edit the address to change it).'),
      h('div', { class: 'filter-actions' }, clearButton),
      message,
    );
  } else {
    redraw();
    form.append(title, list, actions, message);
  }
  showMessage(options.problem, options.problem ? namedPath(options.problem, drafts.map(pathOf)) : undefined);
  return form;
}
