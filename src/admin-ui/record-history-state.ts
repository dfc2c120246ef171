// The record form's History panel, without a DOM: the revisions read so far (pages of `record.history`, newest
// first), which may be compared and restored, and the rows of a comparison (`record.diff` from a revision to the
// current one: what restoring it would change). record-history.ts runs it, record-history-views.ts renders it,
// record-history-api.ts reads and writes it.
import type { JsonValue } from './types.js';

/** How many revisions one read asks for ("Load more" reads the next as many). */
export const HISTORY_PAGE_SIZE = 20;

export interface Revision {
  revision: number;
  /** create, import, patch, update, restore, discard or delete */
  operation: string;
  createdAt: string;
  /** The email of the user whose token or session made it. */
  createdBy: string | null;
}

export interface RevisionPage {
  total: number;
  hasMore: boolean;
  items: Revision[];
}

/** One RFC 6902 operation of `record.diff` (over GraphQL `value` of a remove and `oldValue` of an add are null). */
export interface PatchOperation {
  op: string;
  path: string;
  value?: JsonValue | null;
  oldValue?: JsonValue | null;
}

/** The revisions read so far, newest first, and whether the server has older ones. */
export interface HistoryState {
  items: Revision[];
  total: number;
  hasMore: boolean;
}

export const EMPTY_HISTORY: HistoryState = { items: [], total: 0, hasMore: false };

/**
 * The state after reading `page`: the first page (`replace`) starts the list again, a later one is added below.
 * Revisions made between two reads move the older ones down, so a later page may repeat some: they appear once.
 */
export function withPage(state: HistoryState, page: RevisionPage, replace = false): HistoryState {
  const known = replace ? [] : state.items;
  const seen = new Set(known.map((item) => item.revision));
  const items = [...known, ...page.items.filter((item) => !seen.has(item.revision))].sort((a, b) => b.revision - a.revision);
  return { items, total: Math.max(page.total, items.length), hasMore: page.hasMore };
}

/** Where the next "Load more" reads from. */
export function nextOffset(state: HistoryState): number {
  return state.items.length;
}

/** The record's current revision: the newest read (null before any). */
export function currentRevision(state: HistoryState): number | null {
  return state.items[0]?.revision ?? null;
}

/** The line under the list: how many of how many revisions it shows. */
export function historyStatus(state: HistoryState): string {
  if (state.total === 0) return 'No revisions are kept for this record.';
  const noun = state.total === 1 ? 'revision' : 'revisions';
  return state.items.length >= state.total ? `${state.total} ${noun}` : `Showing ${state.items.length} of ${state.total} ${noun}`;
}

const OPERATION_TEXT: Record<string, string> = {
  create: 'Created',
  import: 'Imported',
  patch: 'Edited',
  update: 'Replaced',
  restore: 'Restored',
  discard: 'Discarded',
  delete: 'Deleted',
};

/** The operation of a revision for people; an operation this version does not know, as the server names it. */
export function operationText(operation: string): string {
  return OPERATION_TEXT[operation] ?? operation;
}

/** Whether a revision gets a "Restore this revision" button: for writers, and not the current one. */
export function mayRestore(state: HistoryState, revision: number, canWrite: boolean): boolean {
  const current = currentRevision(state);
  return canWrite && current !== null && revision !== current;
}

/** An RFC 6901 pointer's segments (`/name/en` → `['name', 'en']`, `~1` is `/`, `~0` is `~`). */
export function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** What a path's name needs of a field (a model's FieldDefinition is one). */
export interface LabelledField {
  key: string;
  label: string;
  fields?: readonly LabelledField[] | null;
}

/**
 * A changed path for people: the labels of the fields it goes through (an object's sub-fields), then what is below
 * them as it is (a locale, an unknown key): `/name/en` → `Name › en`. The whole data (`''`) is "Whole record".
 */
export function pathLabel(pointer: string, fields: readonly LabelledField[]): string {
  const segments = pointerSegments(pointer);
  if (segments.length === 0) return 'Whole record';
  let level: readonly LabelledField[] | null | undefined = fields;
  return segments
    .map((segment) => {
      const field = level?.find((candidate) => candidate.key === segment);
      level = field?.fields;
      return field ? field.label || field.key : segment;
    })
    .join(' › ');
}

/** A pointer as the dotted path the server's messages use (`/name/en` → `name.en`). */
export function dottedPath(pointer: string): string {
  return pointerSegments(pointer).join('.');
}

/** A value of a comparison for people: text as it is, the rest as JSON, a missing value as "(not set)". */
export function valueText(value: JsonValue | null | undefined, present: boolean): string {
  if (!present || value === undefined) return '(not set)';
  if (typeof value === 'string') return value === '' ? '(empty text)' : value;
  return JSON.stringify(value);
}

export type ChangeKind = 'added' | 'removed' | 'changed';

/** One row of a comparison: a path, how it changed since the revision, its value then and now. */
export interface ChangeRow {
  path: string;
  label: string;
  change: ChangeKind;
  then: string;
  now: string;
}

const CHANGE_OF_OP: Record<string, ChangeKind> = { add: 'added', remove: 'removed', replace: 'changed' };

/**
 * The rows of the patch from a revision to the current one, in its order (by path): `add` is a value set since
 * (not in the revision), `remove` one taken away since, `replace` a value changed.
 */
export function changeRows(patch: readonly PatchOperation[], fields: readonly LabelledField[]): ChangeRow[] {
  return patch.map((operation) => {
    const change = CHANGE_OF_OP[operation.op] ?? 'changed';
    return {
      path: dottedPath(operation.path),
      label: pathLabel(operation.path, fields),
      change,
      then: valueText(operation.oldValue, change !== 'added'),
      now: valueText(operation.value, change !== 'removed'),
    };
  });
}

/** The heading of a comparison. */
export function comparisonTitle(revision: number, current: number): string {
  return `Revision ${revision} compared with the current revision (${current})`;
}

/** What a comparison says when there is nothing to list. */
export function noChangesText(revision: number, current: number): string {
  return revision === current
    ? `Revision ${revision} is the current revision.`
    : `Revision ${revision} has the same data as the current revision.`;
}

/** The message after a restore: the record's name, the revision brought back and the one it made. */
export function restoredText(name: string, revision: number, made: number): string {
  return `${name} restored to revision ${revision} (now revision ${made}).`;
}
