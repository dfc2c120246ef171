// The History panel's views, built from its state (record-history-state.ts): the table of revisions with a Compare
// button on each but the current one, the line under it with "Load more", and a comparison of a revision with the
// current one (a row per changed path, its value then and now) with the Restore button.
import { h, listTable } from './dom.js';
import { focusKey } from './focus-return.js';
import {
  comparisonTitle,
  currentRevision,
  historyStatus,
  noChangesText,
  operationText,
  type ChangeRow,
  type HistoryState,
  type Revision,
} from './record-history-state.js';
import { button } from './ui.js';
import { formatDateTime } from './values.js';

function revisionRow(
  item: Revision,
  current: number | null,
  selected: number | null,
  compare: (revision: number) => void,
): HTMLElement {
  const isCurrent = item.revision === current;
  return h(
    'tr',
    { class: `revision${item.revision === selected ? ' revision-selected' : ''}` },
    h('th', { scope: 'row', class: 'num' }, String(item.revision)),
    h('td', null, operationText(item.operation), isCurrent ? h('span', { class: 'muted' }, ' (current)') : null),
    h('td', null, item.createdBy ?? h('span', { class: 'muted' }, 'unknown')),
    h('td', null, formatDateTime(item.createdAt, { seconds: true })),
    h(
      'td',
      { class: 'actions' },
      isCurrent
        ? null
        : focusKey(
            button('Compare', () => compare(item.revision), {
              'aria-label': `Compare revision ${item.revision} with the current revision`,
              'aria-pressed': item.revision === selected ? 'true' : 'false',
            }),
            `compare-${item.revision}`,
          ),
    ),
  );
}

export function revisionTable(state: HistoryState, selected: number | null, compare: (revision: number) => void): HTMLElement {
  const current = currentRevision(state);
  return listTable(
    'table revisions',
    'Revisions, newest first',
    ['Revision', 'Operation', 'By', 'When'],
    state.items.map((item) => revisionRow(item, current, selected, compare)),
    { actions: true },
  );
}

/** The line under the list, with "Load more" while the server has older revisions. */
export function historyFooter(state: HistoryState, loadMore: () => Promise<void>): HTMLElement {
  return h(
    'div',
    { class: 'history-footer' },
    h('p', { class: 'pager-status' }, historyStatus(state)),
    state.hasMore ? button('Load more', loadMore, { 'aria-label': 'Load more revisions' }) : null,
  );
}

const CHANGE_CLASS: Record<ChangeRow['change'], string> = {
  added: 'change change-added',
  removed: 'change change-removed',
  changed: 'change change-changed',
};

function changeRow(row: ChangeRow): HTMLElement {
  return h(
    'tr',
    null,
    h('th', { scope: 'row' }, row.label, h('div', { class: 'small muted' }, h('code', null, row.path))),
    h('td', null, h('span', { class: CHANGE_CLASS[row.change] }, row.change)),
    h('td', { class: 'diff-value diff-then' }, row.then),
    h('td', { class: 'diff-value diff-now' }, row.now),
  );
}

/**
 * A comparison of `revision` with `current`: the table of changes (or that there are none), then `restore`, the
 * Restore button, when the role may restore.
 */
export function comparisonView(
  revision: number,
  current: number,
  rows: readonly ChangeRow[],
  restore: HTMLButtonElement | null,
): HTMLElement {
  return h(
    'div',
    { class: 'comparison' },
    h('h3', { id: 'comparison-title', tabindex: '-1' }, comparisonTitle(revision, current)),
    rows.length === 0
      ? h('p', null, noChangesText(revision, current))
      : listTable(
          'table changes',
          `Changes since revision ${revision}`,
          ['Field', 'Change', `In revision ${revision}`, `Now (revision ${current})`],
          rows.map(changeRow),
        ),
    restore ? h('div', { class: 'form-actions' }, restore) : null,
  );
}
