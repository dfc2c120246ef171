// The record form's state, without a DOM: the values its widgets read (and their problems), what a save sends
// (a new record, a merge patch of what changed, or nothing), where a server message about a field is shown, and
// the summary above the form that follows the messages at the fields. page-record-form.ts renders it.
import type { JsonObject, JsonValue } from './types.js';
import { mergePatch, pathPrefixes, splitFieldMessage } from './values.js';

/** What one field's widget read (record-fields.ts ReadResult). */
export interface FieldRead {
  value: JsonValue | undefined;
  problem?: string;
  shown?: boolean;
}

/** The record's data from the fields' reads; the fields whose problem is still to be shown at them. */
export function collectData(reads: readonly { key: string; read: FieldRead }[]): {
  data: JsonObject;
  hasProblems: boolean;
  /** The problems to put at their field (an object's are already shown at its sub-fields). */
  toShow: { key: string; problem: string }[];
} {
  const data: JsonObject = {};
  const toShow: { key: string; problem: string }[] = [];
  let hasProblems = false;
  for (const { key, read } of reads) {
    if (read.problem) {
      hasProblems = true;
      if (!read.shown) toShow.push({ key, problem: read.problem });
    } else if (read.value !== undefined) {
      data[key] = read.value;
    }
  }
  return { data, hasProblems, toShow };
}

/** What a save sends: a new record, a merge patch of an existing one, or nothing when nothing changed. */
export type SavePlan = { kind: 'create'; data: JsonObject } | { kind: 'patch'; patch: JsonObject } | { kind: 'unchanged' };

export function savePlan(before: JsonObject | null, data: JsonObject): SavePlan {
  if (before === null) return { kind: 'create', data };
  const patch = mergePatch(before, data);
  return Object.keys(patch).length === 0 ? { kind: 'unchanged' } : { kind: 'patch', patch };
}

/**
 * Where a server message `<path>: <reason>` is shown: at the most specific registered path it names (the reason
 * alone at the path itself, the whole message at a field above it); null when it names none.
 */
export function fieldForMessage(message: string, paths: ReadonlySet<string>): { path: string; text: string } | null {
  const named = splitFieldMessage(message);
  if (!named) return null;
  for (const path of pathPrefixes(named.path)) {
    if (paths.has(path)) return { path, text: path === named.path ? named.reason : message };
  }
  return null;
}

/** The messages shown at fields, each naming its field, for the summary above the form. */
export function fieldMessages(errors: Iterable<[path: string, message: string | null]>): string[] {
  return [...errors].flatMap(([path, message]) => {
    if (message === null) return [];
    return [splitFieldMessage(message) ? message : `${path}: ${message}`];
  });
}

/** The summary above the form after an edit: unchanged, changed to `text`, or gone with the last field message. */
export type SummaryUpdate = { kind: 'same' } | { kind: 'clear' } | { kind: 'show'; text: string };

export function followSummary(summaryText: string, messages: readonly string[]): SummaryUpdate {
  const text = messages.join('; ');
  if (text === summaryText) return { kind: 'same' };
  return text === '' ? { kind: 'clear' } : { kind: 'show', text };
}

/** Whether a refusal of the server may be about one field (and be shown at it). */
export function mayNameField(code: string | undefined): boolean {
  return code === 'BAD_USER_INPUT' || code === 'CONFLICT';
}
