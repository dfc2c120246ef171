// The value of a filter condition on a relation field: records of the target model, found by part of their display
// field with the record form's search (relation-search.ts) and shown by name; the condition sends their ids, as the
// filter language compares a relation (delivery.md). One record for "is", "is not" and "holds"; several for "is one
// of" and "is none of".
import { h } from './dom.js';
import { recordNamesById, relationSearch } from './relation-search.js';
import type { ModelDefinition } from './types.js';
import { button } from './ui.js';

export interface RelationValueOptions {
  target: ModelDefinition;
  /** Several records (`$in`, `$nin`) or one. */
  several: boolean;
  /** The ids chosen so far: from the URL, or from the condition before it was drawn again. */
  ids: readonly string[];
  /** The accessible name of the whole value (`Condition 1: value`). */
  label: string;
  change(ids: string[]): void;
}

/**
 * Names of records chosen or read in this tab, so that a condition drawn again (a filter applied, an operator
 * changed) shows names at once; they are read again each time, so a rename elsewhere shows a moment later.
 */
const knownNames = new Map<string, string>();

/** The chosen records and the search, or null when the target cannot be searched by name (no text display field). */
export function relationValue(options: RelationValueOptions): HTMLElement | null {
  const { target, several } = options;
  let ids = [...options.ids];
  const chosen = h('div', { class: 'filter-chosen', 'aria-live': 'polite' });
  const search = relationSearch({
    target,
    many: several,
    disabled: false,
    pick: (record, name) => {
      knownNames.set(record.id, name);
      choose(several ? (ids.includes(record.id) ? ids : [...ids, record.id]) : [record.id]);
    },
  });
  if (!search) return null;
  const searchBox = search.querySelector('input')!;

  function choose(next: string[]): void {
    ids = next;
    options.change(ids);
    showChosen();
  }

  function showChosen(): void {
    if (ids.length === 0) {
      chosen.replaceChildren(h('p', { class: 'muted small' }, `No ${target.name} record chosen.`));
      return;
    }
    chosen.replaceChildren(
      h(
        'ul',
        { 'aria-label': `Chosen ${target.name} records` },
        ids.map((id) => {
          const name = knownNames.get(id) ?? id;
          return h(
            'li',
            null,
            h('span', { class: knownNames.has(id) ? null : 'code' }, name),
            button(
              '×',
              () => {
                choose(ids.filter((other) => other !== id));
                searchBox.focus();
              },
              { class: 'button small', 'aria-label': `Remove ${name}`, title: `Remove ${name}` },
            ),
          );
        }),
      ),
    );
  }

  showChosen();
  if (ids.length > 0) {
    recordNamesById(target, ids)
      .then((names) => {
        const renamed = [...names].filter(([id, name]) => knownNames.get(id) !== name);
        for (const [id, name] of renamed) knownNames.set(id, name);
        // Drawn again only when a name changed, so that a Remove button keeps the focus.
        if (renamed.length > 0) showChosen();
      })
      .catch(() => {
        // The ids stay shown as they are; the search still works.
      });
  }
  return h('div', { class: 'filter-relation', role: 'group', 'aria-label': options.label }, chosen, search);
}
