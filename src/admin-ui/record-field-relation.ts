// The form input of a relation field (record-fields.ts builds it): a picker of the target model's records and a
// search of them.
import { gql } from './api.js';
import { h } from './dom.js';
import type { Widget, WidgetArgs } from './record-fields.js';
import { displayFieldOf, recordName } from './record-names.js';
import { recordNamesById, relationSearch } from './relation-search.js';
import { relationSlug, type RecordPage } from './types.js';
import { button, labelled } from './ui.js';

const PICKER_PAGE = 100;

/**
 * A picker listing the target model's records by their display field, 100 at a time ("Load more"), with a search
 * box that finds them by part of it (relation-search.ts): a match found is chosen (hasOne) or added (hasMany).
 */
export function relationWidget({ field, initial, path, ctx, options }: WidgetArgs): Widget {
  const many = field.relationType === 'hasMany';
  const current = many
    ? Array.isArray(initial)
      ? initial.filter((id): id is string => typeof id === 'string')
      : []
    : typeof initial === 'string'
      ? [initial]
      : [];
  const target = ctx.models.find((model) => model.slug === relationSlug(field));
  const control = h('select', { name: path, multiple: many, size: many ? 6 : null, disabled: ctx.disabled });
  if (!many) control.append(h('option', { value: '' }, '(none)'));
  const known = new Set<string>();
  const addOption = (id: string, label: string) => {
    if (known.has(id)) return;
    known.add(id);
    control.append(h('option', { value: id, selected: current.includes(id) }, label));
  };
  for (const id of current) addOption(id, `${id} (current)`);
  const chosenList = h('p', { class: 'muted small', 'aria-live': 'polite' });
  const showChosen = () => {
    if (!many) return;
    const names = [...control.selectedOptions].map((option) => option.textContent ?? option.value);
    chosenList.textContent = names.length > 0 ? `Chosen: ${names.join(', ')}` : 'None chosen.';
  };
  control.addEventListener('change', showChosen);
  const status = h('span', { class: 'muted small', 'aria-live': 'polite' });
  let offset = 0;
  const more = button('Load more', () => void load(), { hidden: true, class: 'button small' });
  const load = async () => {
    if (!target) return;
    more.disabled = true;
    status.textContent = 'Loading records…';
    try {
      const data = await gql<{ record: { list: RecordPage } }>(
        'query PickRecords($id: ID!, $limit: Int, $offset: Int) { record { list(modelId: $id, limit: $limit, offset: $offset, sort: "updatedAt_desc") { total hasMore items { id data createdAt updatedAt } } } }',
        { id: target.id, limit: PICKER_PAGE, offset },
      );
      const page = data.record.list;
      for (const record of page.items) {
        const name = recordName(target, record);
        if (known.has(record.id)) {
          const option = [...control.options].find((candidate) => candidate.value === record.id);
          if (option) option.textContent = name;
        } else {
          addOption(record.id, name);
        }
      }
      offset += page.items.length;
      showChosen();
      more.hidden = !page.hasMore;
      status.textContent = `${Math.min(offset, page.total)} of ${page.total} ${target.name} records listed`;
    } catch (error) {
      status.textContent = `Could not list the records: ${(error as Error).message}`;
    } finally {
      more.disabled = false;
    }
  };
  // The current choice may be far beyond the first page of a large target model: its names are read by id, so
  // the list shows them, not bare ids, without reading the model through.
  const nameCurrent = async () => {
    if (!target || current.length === 0) return;
    try {
      for (const [id, name] of await recordNamesById(target, current)) {
        const option = [...control.options].find((candidate) => candidate.value === id);
        if (option) option.textContent = name;
      }
      showChosen();
    } catch {
      // The ids stay as they are shown; the list and the search still work.
    }
  };
  void load();
  void nameCurrent();
  const search = target
    ? relationSearch({
        target,
        many,
        disabled: ctx.disabled,
        pick: (record, name) => {
          addOption(record.id, name);
          const option = [...control.options].find((candidate) => candidate.value === record.id)!;
          if (many) option.selected = true;
          else control.value = record.id;
          control.dispatchEvent(new Event('change', { bubbles: true }));
        },
      })
    : null;
  const targetName = target ? `${target.name} (${displayFieldOf(target)?.label ?? 'record'})` : relationSlug(field);
  const hint = target
    ? many
      ? `Records of ${targetName}; hold Ctrl (or ⌘) to choose several.`
      : `A record of ${targetName}.`
    : `The target model ${relationSlug(field)} is not in this workspace.`;
  const row = labelled(field.label, control, { ...options, hint });
  row.element.append(h('div', { class: 'picker-tools' }, more, status), many ? chosenList : '', search ?? '');
  showChosen();
  return {
    row,
    read: () => {
      const chosen = [...control.selectedOptions].map((option) => option.value).filter((id) => id !== '');
      if (many) return { value: chosen.length > 0 ? chosen : undefined };
      return { value: chosen[0] };
    },
  };
}
