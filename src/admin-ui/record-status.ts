// Drafts' views, built from record-status-state.ts: a record's status badge, the records table's status filter,
// and the note after a publish whose records link to records that are not published, with a button that publishes
// those too. A page that re-renders after a publish keeps the note for its next render (rememberTargets).
import { h } from './dom.js';
import { focusKey, returnFocusTo } from './focus-return.js';
import { publishCall } from './record-publish-api.js';
import {
  publishTargetsLabel,
  statusFilterOptions,
  statusText,
  unpublishedTargetsText,
  type RecordStatus,
} from './record-status-state.js';
import { button, errorText } from './ui.js';

/** A record's status as a badge: Draft, Published or Changed. */
export function statusBadge(status: string | undefined): HTMLElement {
  return h('span', { class: `status record-status record-status-${status ?? 'unknown'}` }, statusText(status));
}

/** The records table's status filter; a change goes to `apply` (the page's address with the status). */
export function statusFilter(current: RecordStatus | undefined, apply: (status: RecordStatus | null) => void): HTMLElement {
  const select = focusKey(
    h(
      'select',
      {
        id: 'records-status',
        onchange: () => {
          returnFocusTo('records-status');
          apply((select.value || null) as RecordStatus | null);
        },
      },
      statusFilterOptions().map((option) => h('option', { value: option.value }, option.label)),
    ),
    'records-status',
  ) as HTMLSelectElement;
  select.value = current ?? '';
  return h('div', { class: 'status-filter' }, h('label', { for: 'records-status' }, 'Status'), select);
}

/** Linked records a publish left unpublished, by the page (a model's table, a record's form) that shows the note. */
let remembered: { key: string; targets: string[] } | null = null;

export function rememberTargets(key: string, targets: readonly string[]): void {
  remembered = targets.length > 0 ? { key, targets: [...targets] } : null;
}

/** The targets remembered for `key`, once: the next render has them no more. */
export function takeTargets(key: string): string[] {
  const found = remembered?.key === key ? remembered.targets : [];
  remembered = null;
  return found;
}

/**
 * The note about `targets` (ids of linked records that are not published) with a button that publishes them;
 * `done` hears the records published and the targets that those link to in turn. Null without targets.
 */
export function targetsNote(
  targets: readonly string[],
  done: (published: number, nextTargets: string[]) => void,
): HTMLElement | null {
  if (targets.length === 0) return null;
  const problem = h('p', { class: 'field-error', hidden: true });
  const publish = button(
    publishTargetsLabel(targets.length),
    async () => {
      publish.disabled = true;
      problem.hidden = true;
      try {
        const result = await publishCall('publish', targets);
        done(result.records.length, result.unpublishedTargets);
      } catch (error) {
        problem.textContent = `They were not published. ${errorText(error)}`;
        problem.hidden = false;
      } finally {
        publish.disabled = false;
      }
    },
    { class: 'button button-primary' },
  );
  return h(
    'div',
    { class: 'alert alert-warn targets-note', role: 'status' },
    h('p', null, unpublishedTargetsText(targets.length)),
    h('div', { class: 'form-actions' }, publish),
    problem,
  );
}
