// The search box of a relation picker: finds records of the target model by part of their display value
// (`record.list` with `filter: {"<displayField>": {"$contains": text}}`, case-insensitive on the server), 20 at a
// time, and lists them as buttons; choosing one hands it to the picker, which sets or adds its id. Also how a
// picker names the records it holds by id (the record form's relation field, the filter bar's relation condition).
import { gql } from './api.js';
import { h, uid } from './dom.js';
import { displayFieldOf, recordName } from './record-names.js';
import type { JsonObject, ModelDefinition, ModelRecord, RecordPage } from './types.js';

const SEARCH_LIMIT = 20;
const DEBOUNCE_MS = 250;
/** The most ids `record.getMany` reads at once. */
export const MAX_NAMED_IDS = 100;

export interface RelationSearchOptions {
  target: ModelDefinition;
  many: boolean;
  disabled: boolean;
  /** A record was chosen from the matches. */
  pick(record: ModelRecord, name: string): void;
}

/**
 * The filter for records whose display field contains `text` (in any translation of a translatable one); undefined
 * when that field is not text.
 */
export function searchFilter(target: ModelDefinition, text: string): JsonObject | undefined {
  const field = displayFieldOf(target);
  return field?.type === 'text' || field?.type === 'translatable' ? { [field.key]: { $contains: text } } : undefined;
}

/**
 * The names of records of `target` by id, read in one request without reading the model through (a chosen record
 * may be far beyond its first page); ids of no record are left out, and those beyond the first MAX_NAMED_IDS.
 */
export async function recordNamesById(target: ModelDefinition, ids: readonly string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  if (ids.length === 0) return names;
  const data = await gql<{ record: { getMany: (ModelRecord | null)[] } }>(
    'query PickedRecords($ids: [ID!]!) { record { getMany(ids: $ids) { id data createdAt updatedAt } } }',
    { ids: ids.slice(0, MAX_NAMED_IDS) },
  );
  for (const record of data.record.getMany) {
    if (record) names.set(record.id, recordName(target, record));
  }
  return names;
}

/** The search box and its list of matches, or null when the target's display field is not text. */
export function relationSearch(options: RelationSearchOptions): HTMLElement | null {
  const { target } = options;
  const display = displayFieldOf(target);
  if (!display || searchFilter(target, '') === undefined) return null;
  const inputId = uid('relation-search');
  const box = h('input', {
    id: inputId,
    type: 'search',
    autocomplete: 'off',
    spellcheck: 'false',
    disabled: options.disabled,
    class: 'relation-search-input',
  });
  const status = h('p', { class: 'muted small', 'aria-live': 'polite' });
  const results = h('ul', { class: 'relation-matches', 'aria-label': `Matching ${target.name} records`, hidden: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let generation = 0;

  const clear = () => {
    results.replaceChildren();
    results.hidden = true;
    status.textContent = '';
  };

  const search = async () => {
    clearTimeout(timer);
    const text = box.value.trim();
    const asked = ++generation;
    if (text === '') {
      clear();
      return;
    }
    const filter = searchFilter(target, text)!;
    status.textContent = 'Searching…';
    try {
      const data = await gql<{ record: { list: RecordPage } }>(
        `query FindRecords($id: ID!, $limit: Int, $filter: JSON, $sort: String) {
          record { list(modelId: $id, limit: $limit, filter: $filter, sort: $sort) { total hasMore items { id data createdAt updatedAt } } }
        }`,
        { id: target.id, limit: SEARCH_LIMIT, filter, sort: display.type === 'text' ? `${display.key}_asc` : 'updatedAt_desc' },
      );
      // An answer to an older text than the one in the box now is dropped.
      if (asked !== generation) return;
      const page = data.record.list;
      results.replaceChildren(
        ...page.items.map((record) => {
          const name = recordName(target, record);
          return h(
            'li',
            null,
            h(
              'button',
              {
                type: 'button',
                class: 'button small',
                'aria-label': `${options.many ? 'Add' : 'Choose'} ${name}`,
                onclick: () => {
                  options.pick(record, name);
                  status.textContent = `${name} ${options.many ? 'added' : 'chosen'}.`;
                },
              },
              name,
            ),
          );
        }),
      );
      results.hidden = page.items.length === 0;
      status.textContent =
        page.total === 0
          ? `No ${target.name} record matches “${text}”.`
          : page.total > page.items.length
            ? `${page.items.length} of ${page.total} matches shown; type more to narrow them.`
            : `${page.total} ${page.total === 1 ? 'match' : 'matches'}.`;
    } catch (error) {
      if (asked !== generation) return;
      clear();
      status.textContent = `Could not search: ${(error as Error).message}`;
    }
  };

  box.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => void search(), DEBOUNCE_MS);
  });
  box.addEventListener('keydown', (event) => {
    // Enter searches now instead of submitting the record form; Escape empties the box.
    if (event.key === 'Enter') {
      event.preventDefault();
      void search();
    } else if (event.key === 'Escape' && box.value !== '') {
      event.preventDefault();
      box.value = '';
      generation++;
      clear();
    }
  });
  return h(
    'div',
    { class: 'relation-search' },
    h('label', { for: inputId }, `Find ${target.name} by ${display.label.toLowerCase()}`),
    box,
    status,
    results,
  );
}
