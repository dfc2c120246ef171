// The History section of an existing record's form: its revisions, newest first, read a page at a time ("Load
// more"); Compare shows what changed between a revision and the current one (record.diff from it to the current),
// and "Restore this revision" (writers only, after a confirmation) writes that revision's data as a new revision,
// then shows the form again with the restored data and a message. Its state is record-history-state.ts, its views
// record-history-views.ts, its calls record-history-api.ts.
import { h, replaceChildren } from './dom.js';
import type { PageContext } from './page.js';
import { loadDiff, loadHistoryPage, restoreRevisionCall } from './record-history-api.js';
import {
  EMPTY_HISTORY,
  changeRows,
  currentRevision,
  mayRestore,
  nextOffset,
  restoredText,
  withPage,
  type HistoryState,
} from './record-history-state.js';
import { comparisonView, historyFooter, revisionTable } from './record-history-views.js';
import { recordName } from './record-names.js';
import type { ModelDefinition, ModelRecord } from './types.js';
import { announce, button, confirmDialog, errorArea } from './ui.js';

export interface HistoryPanelOptions {
  ctx: PageContext;
  model: ModelDefinition;
  record: ModelRecord;
  /** Whether the role may write records: only then is Restore offered (the server decides in any case). */
  canWrite: boolean;
}

export interface HistoryPanel {
  element: HTMLElement;
  /** Reads the first page of revisions (a failure is shown in the panel). */
  load(): Promise<void>;
}

export function historyPanel(options: HistoryPanelOptions): HistoryPanel {
  const { ctx, model, record, canWrite } = options;
  const errors = errorArea();
  const listArea = h('div', { class: 'history-list' }, h('p', { class: 'loading' }, 'Loading the history…'));
  const comparisonArea = h('div', { class: 'comparison-area' });
  let state: HistoryState = EMPTY_HISTORY;
  let selected: number | null = null;
  /** Drops the answer of a comparison asked for before the last one. */
  let comparing = 0;

  const renderList = () => {
    replaceChildren(
      listArea,
      state.items.length > 0 ? revisionTable(state, selected, (revision) => void compare(revision)) : null,
      historyFooter(state, loadMore),
    );
  };

  async function loadMore(): Promise<void> {
    errors.clear();
    try {
      const page = await loadHistoryPage(record.id, nextOffset(state));
      state = withPage(state, page);
      renderList();
      announce(`${page.items.length} more revisions shown.`);
    } catch (error) {
      errors.show(error, 'The older revisions could not be read.');
    }
  }

  async function restore(revision: number, control: HTMLButtonElement): Promise<void> {
    errors.clear();
    const confirmed = await confirmDialog({
      title: `Restore revision ${revision}?`,
      message: [
        h('p', null, `${recordName(model, record)} gets the data of revision ${revision} again, as a new revision.`),
        h('p', null, 'Its current data stays in the history. Changes not saved in the form are lost.'),
      ],
      confirmLabel: 'Restore revision',
      danger: true,
    });
    if (!confirmed) return;
    control.disabled = true;
    try {
      const restored = await restoreRevisionCall(record.id, revision);
      if (!ctx.isCurrent()) return;
      ctx.flash(restoredText(recordName(model, { ...record, data: restored.data }), revision, restored.revision));
      ctx.navigate(location.hash);
    } catch (error) {
      errors.show(error, 'The revision was not restored.');
    } finally {
      control.disabled = false;
    }
  }

  async function compare(revision: number): Promise<void> {
    const current = currentRevision(state);
    if (current === null) return;
    const ticket = ++comparing;
    errors.clear();
    selected = revision;
    renderList();
    replaceChildren(comparisonArea, h('p', { class: 'loading' }, `Comparing revision ${revision}…`));
    try {
      const patch = await loadDiff(record.id, revision, current);
      if (ticket !== comparing) return;
      const restoreButton: HTMLButtonElement | null = mayRestore(state, revision, canWrite)
        ? button('Restore this revision', (event) => restore(revision, event.currentTarget as HTMLButtonElement), {
            class: 'button button-danger',
          })
        : null;
      replaceChildren(comparisonArea, comparisonView(revision, current, changeRows(patch, model.fields), restoreButton));
      comparisonArea.querySelector<HTMLElement>('h3')?.focus();
    } catch (error) {
      if (ticket !== comparing) return;
      comparisonArea.replaceChildren();
      errors.show(error, `Revision ${revision} could not be compared.`);
    }
  }

  const element = h(
    'section',
    { class: 'history-section', 'aria-labelledby': 'history-title' },
    h('h2', { id: 'history-title', tabindex: '-1' }, 'History'),
    errors.element,
    listArea,
    comparisonArea,
  );

  return {
    element,
    async load() {
      try {
        state = withPage(EMPTY_HISTORY, await loadHistoryPage(record.id, 0), true);
        renderList();
      } catch (error) {
        listArea.replaceChildren();
        errors.show(error, 'The history could not be read.');
      }
    },
  };
}
